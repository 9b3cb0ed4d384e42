import Foundation

extension LatchkeyApplication {
    /// Checks `configuration` as a start would, without opening the database, binding a port
    /// or writing anything: throws the refusal a start would meet (``ServerConfiguration/validate()``,
    /// the mail and page templates, the JWT keys), and returns the warnings a start would log
    /// (``ServerConfiguration/warnings()``). `latchkey serve --check` prints them.
    public static func check(configuration: ServerConfiguration) throws(ConfigurationError) -> [String] {
        try configuration.validate()
        _ = try MailTemplates.load(overrides: configuration.mailTemplatesDirectory)
        _ = try PageTemplates.load(overrides: configuration.pageTemplatesDirectory)
        return configuration.warnings()
    }
}
