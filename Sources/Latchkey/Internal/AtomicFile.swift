import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Owner-only files written atomically: a temporary file in the same directory, `fsync`, then
/// `rename` over the target and `fsync` of the directory. A crash leaves either the old file or
/// the new one, never a torn one. Failures are ``StorageError``s.
///
/// The one atomic write of the package: the credential files, the install marker, and the
/// command's profile settings.
package enum AtomicFile {
    /// Writes `data` to `url` with mode 0600, creating the directory (0700) if needed.
    package static func write(_ data: Data, to url: URL) throws(StorageError) {
        let directory = url.deletingLastPathComponent()
        try createDirectory(directory)
        let temporary = directory.appendingPathComponent(
            ".\(url.lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw error(errno, "create") }
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        do throws(StorageError) {
            let failedErrno: Int32 = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32 in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return 0
            }
            guard failedErrno == 0 else { throw error(failedErrno, "write") }
            guard fsync(fd) == 0 else { throw error(errno, "fsync") }
            closed = true
            guard close(fd) == 0 else { throw error(errno, "close") }
            guard rename(temporary.path, url.path) == 0 else { throw error(errno, "rename") }
        } catch {
            unlink(temporary.path)
            throw error
        }
        syncDirectory(directory)
    }

    /// Writes `data` to `url` (0600) unless the file already exists; an existing file wins.
    static func createExclusively(_ data: Data, at url: URL) throws(StorageError) {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(
            ".\(url.lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).new")
        try write(data, to: temporary)
        defer { unlink(temporary.path) }
        if link(temporary.path, url.path) != 0, errno != EEXIST {
            throw error(errno, "link")
        }
        syncDirectory(directory)
    }

    /// The contents of `url`, or `nil` when it does not exist.
    static func read(_ url: URL) throws(StorageError) -> Data? {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw error(errno, "open")
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw error(errno, "read")
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    /// Removes `url`; succeeds when it is already gone.
    static func remove(_ url: URL) throws(StorageError) {
        guard unlink(url.path) == 0 || errno == ENOENT else { throw error(errno, "unlink") }
    }

    /// Creates `directory` and its parents, owner-only.
    static func createDirectory(_ directory: URL) throws(StorageError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory),
            isDirectory.boolValue
        {
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unavailable(reason: "cannot create directory \(directory.path)")
        }
    }

    private static func syncDirectory(_ directory: URL) {
        let fd = open(directory.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    static func error(_ code: Int32, _ operation: String) -> StorageError {
        switch code {
        case EACCES, EPERM: .unavailable(reason: "permission denied (\(operation))")
        case ENOSPC, EDQUOT: .unavailable(reason: "no space left (\(operation))")
        case EROFS: .unavailable(reason: "read-only file system (\(operation))")
        default: .status(code, operation: operation)
        }
    }
}
