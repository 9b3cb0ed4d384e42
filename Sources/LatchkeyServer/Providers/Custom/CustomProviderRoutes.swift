import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyWire

/// GoTrue's admin API for custom providers, for holders of a `service_role` key:
/// `GET/POST /admin/custom-providers`, `GET/PUT/DELETE /admin/custom-providers/{identifier}`.
struct CustomProviderRoutes: AuthFeature {
    let authentication: BearerAuthentication
    let providers: CustomProviders

    init(_ dependencies: FeatureDependencies) {
        authentication = dependencies.authentication
        providers = dependencies.customProviders
    }

    func register(on router: Router<AuthRequestContext>) {
        let admin = router.group("/admin/custom-providers").add(middleware: AdministratorMiddleware(authentication: authentication))
        admin.get { request, _ in
            try await providers.list(type: request.uri.queryParameters.get("type"))
        }
        admin.post { request, context in
            let body = try await request.decode(as: CustomProviderBody.self, context: context)
            return try await providers.create(body).response(from: request, context: context, status: .created)
        }
        admin.get(":identifier") { _, context in
            try await providers.get(context.parameters.get("identifier") ?? "")
        }
        admin.put(":identifier") { request, context in
            let body = try await request.decode(as: CustomProviderBody.self, context: context)
            return try await providers.update(context.parameters.get("identifier") ?? "", body)
        }
        admin.delete(":identifier") { _, context in
            try await providers.delete(context.parameters.get("identifier") ?? "")
            return EmptyResponse()
        }
    }
}

extension ResponseEncodable {
    /// The response with another status than 200.
    func response(from request: Request, context: AuthRequestContext, status: HTTPResponse.Status) throws -> Response {
        var response = try response(from: request, context: context)
        response.status = status
        return response
    }
}
