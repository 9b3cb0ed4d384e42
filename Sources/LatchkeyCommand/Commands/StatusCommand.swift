import ArgumentParser
import Foundation
import Latchkey

/// `latchkey status`: who is signed in, where, for how long, and whether the server answers.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show who is signed in, on which server, and how long the session has left.",
        discussion: """
            Exit code 0 when signed in, also when the server cannot be reached (shown as offline: \
            a server that is down never costs you your session); 1 when not signed in.
            """)

    @Flag(name: .customLong("json"), help: "Print the status as JSON.") var json = false
    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await client.run { context in
            let report: StatusReport
            do {
                report = try await StatusReport.gather(context)
            } catch let failure as ClientFailure where json && failure.status == .notSignedIn {
                context.terminal.output(try JSONOutput.render(StatusReport.SignedOut(profile: context.profile, message: failure.message)))
                throw failure.status.exitCode
            }
            if json {
                context.terminal.output(try JSONOutput.render(report))
            } else {
                for line in report.lines { context.terminal.output(line) }
            }
        }
    }
}

/// What `status` found out.
struct StatusReport: Encodable {
    /// Whether (and why not) the server answered.
    enum Server: Encodable {
        case online
        case offline
        case failing(String)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .online: try container.encode("online")
            case .offline: try container.encode("offline")
            case .failing: try container.encode("error")
            }
        }
    }

    let profile: String
    let serverURL: String
    let email: String?
    let userID: String
    let signedInAt: Date?
    let expiresAt: Date
    let now: Date
    let store: String
    let server: Server
    /// The session's assurance level and methods (from the access token).
    let assurance: SessionAssurance
    /// The account has a verified authenticator app but the session is `aal1`.
    let requiresSecondFactor: Bool
    /// The ways to sign in to the account (email and password, providers).
    let identities: [Identity]

    /// Restores the profile's session and asks the server who it belongs to.
    static func gather(_ context: ClientContext) async throws -> StatusReport {
        let (profile, state) = try await ProfileSession.restore(context)
        var user = state.session?.user
        var server = Server.offline
        if case .signedIn = state {
            do {
                user = try await context.terminal.progress("Asking the server…") { try await profile.fetchUser() }
                server = .online
            } catch let failure as ClientFailure where failure.status == .network {
                server = .offline
            } catch let failure as ClientFailure where failure.status == .other {
                server = .failing(failure.message)
            }
        }
        guard let session = await profile.manager.currentSession, let user = user ?? state.session?.user else {
            throw ClientFailure.notSignedIn(profile: context.profile)
        }
        return StatusReport(
            profile: context.profile, serverURL: profile.settings.server, email: user.email ?? user.phone, userID: user.id,
            signedInAt: profile.settings.signedInAt, expiresAt: session.expiresAt, now: context.clock.now(),
            store: profile.credentials.location, server: server, assurance: session.assurance,
            requiresSecondFactor: session.assurance.level < .aal2 && user.hasVerifiedFactor, identities: user.identities)
    }

    /// The report for people.
    var lines: [String] {
        let age = signedInAt.map { "\(Durations.spoken(now.timeIntervalSince($0))) (signed in \(Durations.timestamp($0)))" } ?? "unknown"
        let token =
            expiresAt > now
            ? "valid, expires \(Durations.relative(expiresAt, now: now))"
            : "expired \(Durations.relative(expiresAt, now: now)); renewed when the server is reachable"
        let serverLine =
            switch server {
            case .online: "online"
            case .offline: "offline (cannot reach \(serverURL)); signed in from the saved session"
            case .failing(let message): "error (\(message))"
            }
        let methods = assurance.methodNames.isEmpty ? "" : " (\(assurance.methodNames.joined(separator: ", ")))"
        let assuranceLine =
            requiresSecondFactor
            ? "\(assurance.level)\(methods); the authenticator app's code is needed: run 'latchkey mfa verify\(ProfileName.flag(profile))'"
            : "\(assurance.level)\(methods)"
        var lines = [
            "Signed in to \(serverURL) as \(email ?? userID)\(server == .offline ? " (offline)" : "")",
            "  profile:       \(profile)",
            "  user id:       \(userID)",
            "  session age:   \(age)",
            "  access token:  \(token)",
            "  assurance:     \(assuranceLine)",
            "  credentials:   \(store)",
            "  server:        \(serverLine)",
        ]
        if !identities.isEmpty {
            let linked = identities.map { identity in identity.email.map { "\(identity.provider) (\($0))" } ?? identity.provider }
            lines.append("  identities:    \(linked.joined(separator: ", "))")
        }
        return lines
    }

    /// `status --json` when not signed in.
    struct SignedOut: Encodable {
        let signedIn = false
        let profile: String
        let message: String

        enum CodingKeys: String, CodingKey {
            case signedIn = "signed_in"
            case profile, message
        }
    }

    enum CodingKeys: String, CodingKey {
        case signedIn = "signed_in"
        case offline, profile
        case server = "server_url"
        case serverStatus = "server"
        case email
        case userID = "user_id"
        case signedInAt = "signed_in_at"
        case expiresAt = "access_token_expires_at"
        case expiresIn = "access_token_expires_in"
        case store = "credential_store"
        case aal, amr
        case requiresSecondFactor = "second_factor_required"
        case identities
    }

    /// An identity in `status --json`.
    private struct IdentityEntry: Encodable {
        let identity_id: String
        let provider: String
        let email: String?
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(true, forKey: .signedIn)
        try container.encode(server == .offline, forKey: .offline)
        try container.encode(profile, forKey: .profile)
        try container.encode(serverURL, forKey: .server)
        try container.encode(server, forKey: .serverStatus)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encode(userID, forKey: .userID)
        try container.encodeIfPresent(signedInAt.map(Durations.timestamp), forKey: .signedInAt)
        try container.encode(Durations.timestamp(expiresAt), forKey: .expiresAt)
        try container.encode(Int(expiresAt.timeIntervalSince(now).rounded(.down)), forKey: .expiresIn)
        try container.encode(store, forKey: .store)
        try container.encode(assurance.level.rawValue, forKey: .aal)
        try container.encode(assurance.methodNames, forKey: .amr)
        try container.encode(requiresSecondFactor, forKey: .requiresSecondFactor)
        try container.encode(
            identities.map { IdentityEntry(identity_id: $0.identityID, provider: $0.provider, email: $0.email) }, forKey: .identities)
    }
}

extension StatusReport.Server: Equatable {}
