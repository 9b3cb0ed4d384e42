import Foundation
import Hummingbird

/// `POST/GET /verify`, `POST /recover` and `POST /resend`: everything that starts or ends with
/// a link in an email.
struct EmailLinkRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.post("/verify") { request, context in
            let body = try await JSONBody.decode(VerifyBody.self, from: request, context: context)
            return try JSONBody.response(try await service.emailLinks.verify(body, ipAddress: context.clientIP))
        }
        router.get("/verify") { request, context in
            let query = request.uri.queryParameters
            let location = try await service.emailLinks.follow(
                type: query.get("type"), token: query.get("token"), redirectTo: query.get("redirect_to"), ipAddress: context.clientIP)
            return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
        }
        router.post("/recover") { request, context in
            let body = try await JSONBody.decode(EmailBody.self, from: request, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            try await answeringMailFailure(.recovery, logger: context.logger) {
                try await service.emailLinks.recover(body, queryRedirect: redirect, ipAddress: context.clientIP)
            }
            return JSONBody.empty()
        }
        router.post("/resend") { request, context in
            let body = try await JSONBody.decode(EmailBody.self, from: request, context: context)
            try await answeringMailFailure(body.type == "email_change" ? .emailChange : .confirmation, logger: context.logger) {
                try await service.emailLinks.resend(body, ipAddress: context.clientIP)
            }
            return JSONBody.empty()
        }
    }
}
