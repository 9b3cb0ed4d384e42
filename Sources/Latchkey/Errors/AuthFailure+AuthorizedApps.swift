import Foundation

extension AuthFailure {
    /// The category of the server's answers about authorized apps (``AuthorizedApp``), `nil`
    /// for other codes. Both come with 404, which alone would say nothing.
    static func authorizedAppCategory(code: String?) -> Category? {
        switch code {
        // No active grant for the app: removed already, from this device or another.
        case "oauth_consent_not_found": .invalidInput
        // GoTrue's answer on the routes of a feature the server has off (its OAuth server, SCIM).
        case "feature_disabled": .permission
        default: nil
        }
    }

    /// Words for those failures, which share their categories with others but need their own
    /// sentences.
    var authorizedAppPresentation: Presentation? {
        switch code {
        case "oauth_consent_not_found":
            Presentation(
                title: "App Already Removed",
                message: "This app no longer has access to your account.",
                action: .editInput)
        case "feature_disabled":
            Presentation(
                title: "Not Available",
                message: "This isn't available on this server.",
                action: .contactSupport)
        default:
            nil
        }
    }
}
