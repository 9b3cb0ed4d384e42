import Foundation
import Mustache

/// The Mustache templates of the hosted pages (see ``HostedPages``), their stylesheet, and the
/// script of the pages that offer passkeys (``HostedPasskeys``).
///
/// The defaults ship as resources (`Resources/pages/*.mustache`, `style.css` and `passkey.js`). A
/// folder named by `--page-templates` (``ServerConfiguration/pageTemplatesDirectory``) overrides
/// any of them by file name; files it does not have keep their default. Values are HTML-escaped.
struct PageTemplates: Sendable {
    /// Every template a page renders with, as `<name>.mustache`.
    static let names = [
        "header", "footer", "home", "confirmed", "email-changed", "link-error", "password", "password-changed", "sent",
        "sign-in", "passkey-added", "link-identity", "consent", "apps",
    ]
    /// The stylesheet file name, served at `/welcome/style.css`.
    static let stylesheetName = "style.css"
    /// The passkey script's file name, served at `/welcome/passkey.js`.
    static let scriptName = "passkey.js"

    /// The shipped templates.
    static let defaults: PageTemplates = (try? load()) ?? PageTemplates(library: MustacheLibrary(), stylesheet: "", script: "")

    private let library: MustacheLibrary
    /// The stylesheet the pages link to.
    let stylesheet: String
    /// The script of the pages that offer passkeys.
    let script: String

    /// The default templates, with those in `overrides` (when given) in their place.
    static func load(overrides directory: URL? = nil) throws(ConfigurationError) -> PageTemplates {
        if let directory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ConfigurationError("--page-templates \(directory.path) is not a folder")
            }
        }
        var library = MustacheLibrary()
        for name in names {
            var text = defaultText(name + ".mustache")
            if let directory, let override = try readOverride(directory.appendingPathComponent(name + ".mustache")) { text = override }
            do {
                try library.register(text, named: name)
            } catch {
                throw ConfigurationError("page template \(name).mustache cannot be parsed: \(error)")
            }
        }
        var stylesheet = defaultText(stylesheetName)
        if let directory, let override = try readOverride(directory.appendingPathComponent(stylesheetName)) { stylesheet = override }
        var script = defaultText(scriptName)
        if let directory, let override = try readOverride(directory.appendingPathComponent(scriptName)) { script = override }
        return PageTemplates(library: library, stylesheet: stylesheet, script: script)
    }

    /// The page `name` rendered with `values` (strings, booleans, numbers).
    func render(_ name: String, _ values: [String: any Sendable]) -> String {
        library.render(values, withTemplate: name) ?? ""
    }

    private static func defaultText(_ file: String) -> String {
        guard
            let url = Bundle.module.url(forResource: "pages/" + file, withExtension: nil)
                ?? Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "pages"),
            let data = try? Data(contentsOf: url)
        else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func readOverride(_ url: URL) throws(ConfigurationError) -> String? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("page template \(url.path) cannot be read as UTF-8 text")
        }
        return text
    }
}
