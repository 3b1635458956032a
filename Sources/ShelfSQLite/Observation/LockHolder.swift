internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

/// The process that holds a WAL database's write lock, found the way SQLite itself locks.
///
/// In WAL mode SQLite takes the write lock as a POSIX advisory lock on one byte of the
/// `-shm` file (offset 120, the first of the WAL index's lock bytes). `F_GETLK` on that byte
/// names the process holding it. It cannot see a lock held by this same process (POSIX locks
/// never conflict with their owner), so nil means "no other process, or none found".
package struct LockHolder: CustomStringConvertible, Sendable {
    package let pid: Int32
    /// The holder's command line, from /proc, when readable.
    let command: String?

    /// The byte of the -shm file that SQLite locks for writing (WALINDEX_LOCK_OFFSET + 0).
    static let walWriteLockOffset = 120

    static func writeLockHolder(databasePath: String) -> LockHolder? {
        holder(ofSHM: databasePath + "-shm", offset: walWriteLockOffset)
    }

    /// Another process that has the database at `databasePath` open in WAL mode, if any:
    /// every connection holds a shared lock on the -shm file's "dead man switch" byte (128).
    package static func user(ofDatabase databasePath: String) -> LockHolder? {
        holder(ofSHM: databasePath + "-shm", offset: 128)
    }

    private static func holder(ofSHM path: String, offset: Int) -> LockHolder? {
        // Closing any descriptor of a file drops all of this process's POSIX locks on it: when
        // SQLite has the file open here (its locks are then this process's), use SQLite's own
        // descriptor and close nothing. Otherwise this process holds no lock on the file, and
        // a descriptor of our own may be opened and closed.
        let borrowed = FileIdentity(path: path).flatMap(WALIndexFile.openDescriptor(of:))
        let descriptor = borrowed ?? open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { if borrowed == nil { close(descriptor) } }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(offset)
        lock.l_len = 1
        guard fcntl(descriptor, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK), lock.l_pid > 0 else {
            return nil
        }
        return LockHolder(pid: lock.l_pid, command: commandLine(of: lock.l_pid))
    }

    private static func commandLine(of pid: Int32) -> String? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else {
            return nil
        }
        let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        let text = words.joined(separator: " ")
        // A command line can be anything; keep the message short and free of control bytes.
        let clean = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return clean.count > 80 ? String(clean.prefix(80)) + "…" : clean
    }

    package var description: String {
        "process \(pid)" + (command.map { " (\($0))" } ?? "")
    }
}
