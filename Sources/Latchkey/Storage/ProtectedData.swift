import Foundation

/// Whether the data an app keeps protected until the device's first unlock can be read now.
///
/// After a reboot, and before the person unlocks the device for the first time, iOS may launch
/// an app in the background (a push, a background fetch, prewarming). Its preferences then read
/// as empty, files with the default protection (`completeUntilFirstUserAuthentication`) cannot
/// be opened, and keychain items cannot be read. "Nothing stored" then means "cannot tell yet":
/// a missing install marker, an onboarding flag or an app-lock flag that reads `false` must not
/// be believed. ``UserDefaultsInstallMarker`` and LatchkeyAppFlow's `UserDefaultsPreferences`
/// ask this question before they report "not set" (and, through ``ProtectedDataHistory``,
/// remember for the rest of the process that the answer was once "no"). ``FileInstallMarker``
/// and LatchkeyAppFlow's `FilePreferences` need not ask: whether a file exists can be told
/// before the first unlock, and they read it from disk every time.
///
/// The real answer is ``FirstUnlockProbe``; tests inject their own.
public protocol ProtectedDataAvailability: Sendable {
    /// Whether data protected until the first unlock can be read now.
    func isAvailable() -> Bool
}

/// Tells whether the device has been unlocked since it started, by reading a small file of its
/// own protected `completeUntilFirstUserAuthentication` — the protection of the app's
/// preferences and, by default, of every file it creates.
///
/// Before the first unlock such a file exists but cannot be opened, and a new one cannot be
/// created; afterwards both work until the next reboot, so a positive answer is remembered for
/// the life of the process. The file holds no data. On iOS, iPadOS, watchOS and visionOS the file
/// is read; on macOS and Linux, where a running app's files are readable, and on tvOS, which has
/// no passcode and so no "before the first unlock", the answer is always `true` and nothing is
/// written.
///
/// The probe answers for data of the class `completeUntilFirstUserAuthentication` only. An app
/// whose data has a stricter class — an app-wide `NSFileProtectionComplete` data-protection
/// entitlement, or files written with `.complete` — has data that cannot be read while the
/// device is locked, even long after the first unlock, and this probe then answers `true`
/// wrongly. Such an app should keep the flags Latchkey relies on in files whose existence is
/// the flag (``FileInstallMarker``, LatchkeyAppFlow's `FilePreferences`), which no protection
/// class hides, or inject a ``ProtectedDataAvailability`` of its own that tests its real class.
public struct FirstUnlockProbe: ProtectedDataAvailability {
    /// The probe file.
    public let url: URL

    /// A probe at `url` (in the app's own container; the directory is created when needed).
    public init(url: URL) {
        self.url = url
    }

    /// The probe in the app's Application Support directory.
    public static var standard: FirstUnlockProbe {
        FirstUnlockProbe(url: ApplicationSupport.latchkeyFile("first-unlock-probe"))
    }

    /// Probes that answered `true` in this process (the answer cannot change back before a reboot).
    private static let available = LockedValue(Set<String>())

    public func isAvailable() -> Bool {
        #if os(iOS) || os(watchOS) || os(visionOS)
        if Self.available.withLock({ $0.contains(url.path) }) { return true }
        let readable: Bool
        if FileManager.default.fileExists(atPath: url.path) {
            // Its name is readable before the first unlock; its contents are not.
            readable = (try? Data(contentsOf: url)) != nil
        } else {
            // Creating a file of this class needs its key, which exists only after the first unlock.
            try? FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            readable = FileManager.default.createFile(
                atPath: url.path, contents: Data("1".utf8),
                attributes: [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication])
        }
        if readable { Self.available.withLock { _ = $0.insert(url.path) } }
        return readable
        #else
        return true
        #endif
    }
}

/// Remembers whether protected data was ever unavailable in this process.
///
/// A process that read its `UserDefaults` before the first unlock after a reboot can keep the
/// empty copy it read then after the device is unlocked: `UserDefaults` offers no way to read
/// the defaults from disk again. So in such a process a `false` read from the defaults is never
/// believed, even once ``ProtectedDataAvailability/isAvailable()`` answers `true`: a stored
/// `true` still is (an empty copy cannot produce one). ``UserDefaultsInstallMarker`` and
/// LatchkeyAppFlow's `UserDefaultsPreferences` keep their answers here, by default in the
/// process-wide ``process``; tests inject their own.
public final class ProtectedDataHistory: Sendable {
    /// The history of this process.
    public static let process = ProtectedDataHistory()

    private let unavailable = LockedValue(false)

    /// A history in which protected data was never unavailable.
    public init() {}

    /// Asks `protectedData` whether protected data can be read now, remembering a "no".
    public func isAvailable(_ protectedData: any ProtectedDataAvailability) -> Bool {
        let available = protectedData.isAvailable()
        if !available { unavailable.withLock { $0 = true } }
        return available
    }

    /// Whether protected data was unavailable at some point in this process (as far as this
    /// history was asked): then defaults that read "not set" may be a stale empty copy.
    public var wasEverUnavailable: Bool {
        unavailable.withLock { $0 }
    }
}
