import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// Flags kept as files (``FilePreferences``): read from disk every time, so never a stale copy.
@Suite("File preferences")
struct FilePreferencesTests {
    let directory = temporaryDirectory("file-preferences")

    @Test("A flag is a file: set, cleared, and seen at once by every reader of the directory")
    func setAndClear() {
        defer { removeDirectory(directory) }
        let preferences = FilePreferences(directory: directory.appendingPathComponent("flags"))
        let otherProcess = FilePreferences(directory: directory.appendingPathComponent("flags"))
        #expect(preferences.isAvailable, "no directory yet: nothing was ever set")
        #expect(!preferences.bool(forKey: OnboardingFlag.defaultKey))
        #expect(OnboardingFlag(preferences: preferences).isCompletedIfReadable == false)

        otherProcess.set(true, forKey: OnboardingFlag.defaultKey)
        #expect(preferences.bool(forKey: OnboardingFlag.defaultKey))
        #expect(OnboardingFlag(preferences: preferences).isCompletedIfReadable == true)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("flags/hasCompletedOnboarding").path))

        otherProcess.set(false, forKey: OnboardingFlag.defaultKey)
        #expect(!preferences.bool(forKey: OnboardingFlag.defaultKey))
        preferences.set(false, forKey: "never-set")  // clearing what is not there is fine
        #expect(!preferences.bool(forKey: "never-set"))
    }

    @Test("Every key has a file of its own inside the directory, never hidden", arguments: ["a/b", "../up", ".hidden", "", "ü", "a%2Fb"])
    func keyNames(key: String) throws {
        defer { removeDirectory(directory) }
        let preferences = FilePreferences(directory: directory)
        let url = preferences.url(forKey: key)
        #expect(url.deletingLastPathComponent().standardizedFileURL == directory.standardizedFileURL)
        #expect(!url.lastPathComponent.hasPrefix("."))
        preferences.set(true, forKey: key)
        #expect(preferences.bool(forKey: key))
        let others = ["a/b", "../up", ".hidden", "", "ü", "a%2Fb"].filter { $0 != key }
        #expect(others.allSatisfy { !preferences.bool(forKey: $0) }, "no other key reads the same file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
    }

    @Test("A directory that cannot be examined is unavailable, so its 'false's are not believed")
    func unavailable() throws {
        defer { removeDirectory(directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A symbolic link to itself: stat fails with ELOOP, even for root.
        let loop = directory.appendingPathComponent("loop")
        try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: loop.path)
        let preferences = FilePreferences(directory: loop)
        #expect(!preferences.isAvailable)
        #expect(OnboardingFlag(preferences: preferences).isCompletedIfReadable == nil)
    }

    @Test("The standard flags live in Application Support")
    func standard() {
        #expect(FilePreferences.standard.directory.path.hasSuffix("dev.latchkey/preferences"))
    }
}
