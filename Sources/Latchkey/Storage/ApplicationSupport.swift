import Foundation

/// Where Latchkey keeps its own small files by default: `Application Support/dev.latchkey/` in
/// the app's container (erased with the app), or the temporary directory where a platform
/// has no Application Support directory.
package enum ApplicationSupport {
    /// `Application Support/dev.latchkey/<name>`.
    package static func latchkeyFile(_ name: String) -> URL {
        let support =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return support.appendingPathComponent("dev.latchkey").appendingPathComponent(name)
    }
}
