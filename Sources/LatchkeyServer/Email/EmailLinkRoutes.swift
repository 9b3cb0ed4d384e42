import Foundation
import Hummingbird
import LatchkeyWire

/// Everything that starts or ends with an email: `/verify`, `/recover`, `/resend`, `/otp`,
/// `/magiclink`. (The administrator's `/invite` and `/admin/generate_link` are in ``AdminRoutes``.)
struct EmailLinkRoutes: AuthFeature {
    let dependencies: FeatureDependencies
    /// `POST/GET /verify`.
    let verification: EmailVerification
    /// `POST /otp` and `POST /magiclink`.
    let emailSignIn: EmailSignIn
    /// `POST /otp` with a phone number; `nil` when phone sign-in is off.
    let phoneSignIn: PhoneSignIn?
    /// `POST /verify` types `sms` and `phone_change`; `nil` when phone sign-in is off.
    let phoneVerification: PhoneVerification?
    /// Where `GET /verify` lands when the site URL is the server itself.
    let hostedPages: HostedPages

    init(_ dependencies: FeatureDependencies) {
        let (configuration, shared) = (dependencies.configuration, dependencies.shared)
        self.dependencies = dependencies
        verification = dependencies.verification
        emailSignIn = EmailSignIn(
            shared: shared, emailLinks: dependencies.emailLinks, signUpDisabled: configuration.disableSignup,
            autoconfirm: configuration.autoconfirm)
        phoneSignIn = dependencies.phoneCodes.map { PhoneSignIn(shared: shared, codes: $0, signUpDisabled: configuration.disableSignup) }
        phoneVerification = dependencies.phoneCodes.map { PhoneVerification(shared: shared, codes: $0) }
        hostedPages = dependencies.hostedPages
    }

    func register(on router: Router<AuthRequestContext>) {
        router.post("/verify") { request, context in
            let body = try await request.decode(as: VerifyBody.self, context: context)
            try body.validateCodeAddress()
            if body.type == "sms" || body.type == "phone_change", let phone = phoneVerification {
                return EmailVerification.Outcome.session(try await phone.verify(body, ipAddress: context.clientIP))
            }
            return try await verification.verify(body, ipAddress: context.clientIP)
        }
        router.get("/verify") { request, context in
            let query = request.uri.queryParameters
            // No app to send the session to (the site URL is the server itself): the server's own pages.
            if hostedPages.handles(redirectTo: query.get("redirect_to"), token: query.get("token")) {
                return try await HostedPageRoutes.verifyLanding(request, context: context, pages: hostedPages)
            }
            let location = try await verification.follow(
                type: query.get("type"), token: query.get("token"), redirectTo: query.get("redirect_to"), ipAddress: context.clientIP)
            return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
        }
        // The routes that send only to an address or number with an account take the same time
        // either way (ResponsePadding).
        router.group().add(middleware: dependencies.padding("recover")).post("/recover") { request, context in
            guard dependencies.configuration.emailEnabled else { throw AuthError.emailLinksDisabled }
            let body = try await request.decode(as: EmailBody.self, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            try await dependencies.emailLinks.recover(body, queryRedirect: redirect, ipAddress: context.clientIP)
            return EmptyResponse()
        }
        router.group().add(middleware: dependencies.padding("resend")).post("/resend") { request, context in
            let body = try await request.decode(as: EmailBody.self, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            if body.type == "sms" || body.type == "phone_change", let phone = phoneSignIn {
                ResponsePadding.answering(by: .sms)
                try await phone.resend(body, ipAddress: context.clientIP)
                return EmptyResponse()
            }
            if !(body.email ?? "").isEmpty, (body.phone ?? "").isEmpty, !dependencies.configuration.emailEnabled {
                throw AuthError.emailLinksDisabled
            }
            try await dependencies.emailLinks.resend(body, queryRedirect: redirect, ipAddress: context.clientIP)
            return EmptyResponse()
        }
        for path in ["/otp", "/magiclink"] {
            router.group().add(middleware: dependencies.padding(path)).post(RouterPath(path)) { request, context in
                let body = try await request.decode(as: OTPBody.self, context: context)
                let redirect = request.uri.queryParameters.get("redirect_to")
                if body.email == nil, body.phone != nil, let phone = phoneSignIn {
                    ResponsePadding.answering(by: .sms)
                    try await phone.send(body, ipAddress: context.clientIP)
                    return EmptyResponse()
                }
                if !(body.email ?? "").isEmpty, !dependencies.configuration.emailEnabled { throw AuthError.emailLoginsDisabled }
                try await emailSignIn.send(body, queryRedirect: redirect, ipAddress: context.clientIP)
                return EmptyResponse()
            }
        }
    }
}
