import Foundation
import Hummingbird
import LatchkeyWire

/// Everything that starts or ends with an email: `/verify`, `/recover`, `/resend`, `/otp`,
/// `/magiclink`. (The administrator's `/invite` and `/admin/generate_link` are in ``AdminRoutes``.)
struct EmailLinkRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.post("/verify") { request, context in
            let body = try await request.decode(as: VerifyBody.self, context: context)
            try body.validateCodeAddress()
            if body.type == "sms" || body.type == "phone_change", let phone = service.phoneVerification {
                return EmailVerification.Outcome.session(try await phone.verify(body, ipAddress: context.clientIP))
            }
            return try await service.verification.verify(body, ipAddress: context.clientIP)
        }
        router.get("/verify") { request, context in
            let query = request.uri.queryParameters
            // No app to send the session to (the site URL is the server itself): the server's own pages.
            if service.hostedPages.handles(redirectTo: query.get("redirect_to"), token: query.get("token")) {
                return try await HostedPageRoutes.verifyLanding(request, context: context, pages: service.hostedPages)
            }
            let location = try await service.verification.follow(
                type: query.get("type"), token: query.get("token"), redirectTo: query.get("redirect_to"), ipAddress: context.clientIP)
            return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
        }
        // The routes that send only to an address or number with an account take the same time
        // either way (ResponsePadding).
        router.group().add(middleware: service.padding("recover")).post("/recover") { request, context in
            guard service.emailEnabled else { throw AuthError.emailLinksDisabled }
            let body = try await request.decode(as: EmailBody.self, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            try await service.emailLinks.recover(body, queryRedirect: redirect, ipAddress: context.clientIP)
            return EmptyResponse()
        }
        router.group().add(middleware: service.padding("resend")).post("/resend") { request, context in
            let body = try await request.decode(as: EmailBody.self, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            if body.type == "sms" || body.type == "phone_change", let phone = service.phoneSignIn {
                ResponsePadding.answering(by: .sms)
                try await phone.resend(body, ipAddress: context.clientIP)
                return EmptyResponse()
            }
            if !(body.email ?? "").isEmpty, (body.phone ?? "").isEmpty, !service.emailEnabled { throw AuthError.emailLinksDisabled }
            try await service.emailLinks.resend(body, queryRedirect: redirect, ipAddress: context.clientIP)
            return EmptyResponse()
        }
        for path in ["/otp", "/magiclink"] {
            router.group().add(middleware: service.padding(path)).post(RouterPath(path)) { request, context in
                let body = try await request.decode(as: OTPBody.self, context: context)
                let redirect = request.uri.queryParameters.get("redirect_to")
                if body.email == nil, body.phone != nil, let phone = service.phoneSignIn {
                    ResponsePadding.answering(by: .sms)
                    try await phone.send(body, ipAddress: context.clientIP)
                    return EmptyResponse()
                }
                if !(body.email ?? "").isEmpty, !service.emailEnabled { throw AuthError.emailLoginsDisabled }
                try await service.emailSignIn.send(body, queryRedirect: redirect, ipAddress: context.clientIP)
                return EmptyResponse()
            }
        }
    }
}
