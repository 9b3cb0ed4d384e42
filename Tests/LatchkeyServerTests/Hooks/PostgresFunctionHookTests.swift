import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// PostgreSQL function hooks (`pg-functions://postgres/<schema>/<function>`) on a real
/// PostgreSQL with plpgsql functions: called with the same payload as an HTTP hook, their
/// `{"error": …}` answers and their failures mapped as GoTrue maps them. PostgreSQL only.
@Suite("PostgreSQL function hooks", .enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresFunctionHookTests {
    static let functions = [
        """
        CREATE FUNCTION public.add_plan(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
        BEGIN
          RETURN jsonb_build_object('claims', (event->'claims') || jsonb_build_object('plan', 'pro', 'hooked_user', event->>'user_id'));
        END $$
        """,
        """
        CREATE FUNCTION public.no_example_org(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
        BEGIN
          IF event->'user'->>'email' LIKE '%@example.org' THEN
            RETURN '{"error": {"http_code": 403, "message": "No sign-ups from example.org"}}'::jsonb;
          END IF;
          RETURN '{}'::jsonb;
        END $$
        """,
        """
        CREATE FUNCTION public.broken(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
        BEGIN
          RAISE EXCEPTION 'broken hook';
        END $$
        """,
        "CREATE TABLE public.hook_calls (id serial PRIMARY KEY, event jsonb NOT NULL)",
        """
        CREATE FUNCTION public.record(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO public.hook_calls (event) VALUES (event);
          RETURN '{}'::jsonb;
        END $$
        """,
        """
        CREATE FUNCTION public.slow(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_sleep(10);
          RETURN event;
        END $$
        """,
    ]

    /// Runs `body` against a server on a fresh PostgreSQL database holding the test functions.
    static func with(
        _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void, _ body: @escaping @Sendable (TestServer) async throws -> Void
    ) async throws {
        try await withDatabase(configure) { server, _ in try await body(server) }
    }

    /// Runs `body` against a server on a fresh PostgreSQL database holding the test functions,
    /// with the database's URL.
    static func withDatabase(
        smsSender: (any SMSSender)? = nil, _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void,
        _ body: @escaping @Sendable (TestServer, String) async throws -> Void
    ) async throws {
        try await PostgresTestDatabase.with { url in
            for function in functions { try await PostgresTestDatabase.execute(function, on: url) }
            try await TestServer.with(
                smsSender: smsSender,
                configure: { configuration in
                    configuration.databaseURL = url
                    configuration.autoconfirm = true
                    configure(&configuration)
                }
            ) { server in try await body(server, url) }
        }
    }

    /// The `path` (a `#>>` text path such as `{sms,otp}`) of the last event `record` was called with.
    static func lastRecorded(_ path: String, on url: String) async throws -> String? {
        try await PostgresTestDatabase.text("SELECT event #>> '\(path)' FROM public.hook_calls ORDER BY id DESC LIMIT 1", on: url)
    }

    static func accessTokenHook(_ function: String) -> @Sendable (inout ServerConfiguration) -> Void {
        { configuration in
            configuration.hooks.customAccessToken.enabled = true
            configuration.hooks.customAccessToken.uri = "pg-functions://postgres/public/\(function)"
        }
    }

    @Test("a custom access token function adds a claim to every token it is asked about")
    func customAccessToken() async throws {
        try await Self.with(Self.accessTokenHook("add_plan")) { server in
            let session = try await server.signUp("fn@example.com")
            let claims = try unverifiedClaims(of: session.accessToken)
            #expect(claims["plan"] as? String == "pro" && claims["hooked_user"] as? String == session.userID)
            let refresh = try await server.refresh(session.refreshToken)
            let refreshed = try #require(TestSession(refresh))
            #expect(try unverifiedClaims(of: refreshed.accessToken)["plan"] as? String == "pro")
            #expect(try await server.request(.GET, "/user", bearer: refreshed.accessToken).status == 200)
        }
    }

    @Test("a before user created function's error refuses the sign-up with its status and message, and nothing is stored")
    func beforeUserCreated() async throws {
        try await Self.with({ configuration in
            configuration.hooks.beforeUserCreated.enabled = true
            configuration.hooks.beforeUserCreated.uri = "pg-functions://postgres/public/no_example_org"
        }) { server in
            let refused = try await server.request(.POST, "/signup", json: ["email": "new@example.org", "password": "correct horse battery"])
            #expect(refused.status == 403 && refused["msg"] as? String == "No sign-ups from example.org", "\(refused.text)")
            #expect(try await server.signIn("new@example.org").errorCode == "invalid_credentials")
            try await server.signUp("new@example.com")
        }
    }

    @Test("a send SMS function gets the code and the number; the code signs in, and no provider is called")
    func sendSMS() async throws {
        let sender = RecordingSMSSender()
        try await Self.withDatabase(smsSender: sender) { configuration in
            configuration.phone.enabled = true
            configuration.hooks.sendSMS.enabled = true
            configuration.hooks.sendSMS.uri = "pg-functions://postgres/public/record"
        } _: { server, url in
            let sent = try await server.request(.POST, "/otp", json: ["phone": "+1 555 555 0123"])
            #expect(sent.status == 200, "\(sent.text)")
            #expect(try await Self.lastRecorded("{metadata,name}", on: url) == "send-sms")
            #expect(try await Self.lastRecorded("{sms,phone}", on: url) == "15555550123")
            let code = try #require(try await Self.lastRecorded("{sms,otp}", on: url))
            let verified = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code])
            #expect(TestSession(verified) != nil, "\(verified.text)")
            #expect(sender.sent.isEmpty)
        }
    }

    @Test("a send email function gets the confirmation's code instead of the mailer; the code confirms the account")
    func sendEmail() async throws {
        try await Self.withDatabase { configuration in
            configuration.autoconfirm = false
            configuration.hooks.sendEmail.enabled = true
            configuration.hooks.sendEmail.uri = "pg-functions://postgres/public/record"
        } _: { server, url in
            let signUp = try await server.request(.POST, "/signup", json: ["email": "fn-mail@example.com", "password": "correct horse battery"])
            #expect(signUp.status == 200, "\(signUp.text)")
            #expect(try await Self.lastRecorded("{metadata,name}", on: url) == "send-email")
            #expect(try await Self.lastRecorded("{email_data,email_action_type}", on: url) == "signup")
            #expect(try await Self.lastRecorded("{user,email}", on: url) == "fn-mail@example.com")
            let code = try #require(try await Self.lastRecorded("{email_data,token}", on: url))
            let verified = try await server.request(.POST, "/verify", json: ["type": "signup", "email": "fn-mail@example.com", "token": code])
            #expect(TestSession(verified) != nil, "\(verified.text)")
            #expect(try server.outbox().isEmpty)
        }
    }

    @Test("a function that raises is a 500 naming the hook, and no account or token is made")
    func raises() async throws {
        try await Self.with(Self.accessTokenHook("broken")) { server in
            let response = try await server.request(.POST, "/signup", json: ["email": "broken@example.com", "password": "correct horse battery"])
            #expect(response.status == 500, "\(response.text)")
            #expect(response["msg"] as? String == "Error running hook URI: pg-functions://postgres/public/broken")
            #expect(!response.text.contains("broken hook") && response["access_token"] == nil)
        }
    }

    @Test("a function that runs past the 2-second statement timeout is cancelled: a 500, and the server goes on")
    func tooSlow() async throws {
        try await Self.with({
            Self.accessTokenHook("slow")(&$0)
            $0.hooks.functionTimeout = 2
        }) { server in
            // The function sleeps 10 s and then returns its event, which would be a 200 with a
            // session: a 500 naming the hook shows that it was cancelled, however long the
            // request took on this machine.
            let response = try await server.request(.POST, "/signup", json: ["email": "slow@example.com", "password": "correct horse battery"])
            #expect(response.status == 500 && response["msg"] as? String == "Error running hook URI: pg-functions://postgres/public/slow")
            #expect(response["access_token"] == nil, "the function was cancelled, not waited out")
            #expect(try await server.request(.GET, "/health").status == 200)
        }
    }
}

/// PostgreSQL function hook URIs checked at start, on any store.
@Suite("PostgreSQL function hook configuration")
struct PostgresFunctionHookConfigurationTests {
    @Test("a pg-functions:// URI with SQLite, or with a bad name, refuses the start naming the setting")
    func configuration() throws {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.hooks.customAccessToken.enabled = true
        configuration.hooks.customAccessToken.uri = "pg-functions://postgres/public/add_plan"
        do {
            try configuration.validate()
            Issue.record("a function hook was accepted with SQLite")
        } catch {
            #expect("\(error)".contains("PostgreSQL store") && "\(error)".contains("GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI"), "\(error)")
        }
        configuration.databaseURL = "postgres://latchkey@localhost/latchkey"
        #expect(throws: Never.self) { try configuration.hooks.validate(postgres: true) }
        for bad in ["pg-functions://postgres/public", "pg-functions://postgres/public/drop table", "pg-functions://postgres/1schema/f"] {
            configuration.hooks.customAccessToken.uri = bad
            #expect(throws: ConfigurationError.self, "\(bad)") { try configuration.hooks.validate(postgres: true) }
        }
    }
}
