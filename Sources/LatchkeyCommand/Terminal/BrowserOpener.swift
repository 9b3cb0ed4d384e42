import Foundation

/// Opens a URL in the desktop's browser: `open` on macOS, `xdg-open` elsewhere. Returns
/// whether the opener started; it is not waited for.
enum BrowserOpener {
    static func open(_ url: URL) -> Bool {
        #if os(macOS)
        let opener = "open"
        #else
        let opener = "xdg-open"
        #endif
        guard let path = executable(opener) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
            return true
        } catch {
            return false
        }
    }

    /// `name` on the `PATH`, if it is there.
    private static func executable(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
