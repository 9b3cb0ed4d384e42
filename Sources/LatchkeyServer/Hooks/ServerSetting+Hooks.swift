import Foundation

/// The settings every auth hook has alike, with GoTrue's names: `--hook-<name>-uri` (also
/// `GOTRUE_HOOK_<NAME>_URI`) and the environment-only `GOTRUE_HOOK_<NAME>_SECRETS`.
extension ServerSetting {
    /// Where the hook at `hook` is; `title` names it in the help ("send SMS").
    static func hookURI(_ name: String, _ hook: WritableKeyPath<AuthHooks, AuthHookSettings>, title: String) -> ServerSetting {
        ServerSetting(
            "hook-\(name)-uri", hookSettings(hook).appending(path: \.uri), .optionalText, variables: [Variable(goTrueHookVariable(name, "URI"))],
            help:
                "The \(title) hook's URL: https (http only for localhost, 127.0.0.1 and ::1), or with PostgreSQL pg-functions://postgres/<schema>/<function>."
        )
    }

    /// The secrets the requests to the hook at `hook` are signed with; `title` names it in the help.
    static func hookSecrets(_ name: String, _ hook: WritableKeyPath<AuthHooks, AuthHookSettings>, title: String) -> ServerSetting {
        ServerSetting(
            environment: goTrueHookVariable(name, "SECRETS"), hookSettings(hook).appending(path: \.secrets), .optionalText,
            help: "The \(title) hook's Standard Webhooks secrets, v1,whsec_<base64>, separated by |.", isSecret: true)
    }

    private static func hookSettings(_ hook: WritableKeyPath<AuthHooks, AuthHookSettings>) -> WritableKeyPath<ServerConfiguration, AuthHookSettings> {
        (\ServerConfiguration.hooks as WritableKeyPath<ServerConfiguration, AuthHooks>).appending(path: hook)
    }

    /// `GOTRUE_HOOK_<NAME>_<SUFFIX>`: `send-sms`, `URI` → `GOTRUE_HOOK_SEND_SMS_URI`.
    private static func goTrueHookVariable(_ name: String, _ suffix: String) -> String {
        "GOTRUE_HOOK_\(name.uppercased().replacingOccurrences(of: "-", with: "_"))_\(suffix)"
    }
}
