internal import Foundation
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// A WAL database's `-shm` file (the WAL index), reached through the descriptor SQLite itself
/// has open on it in this process.
///
/// **Why borrow SQLite's descriptor.** SQLite's locks are POSIX advisory locks, and closing
/// *any* descriptor of a file releases all of the process's POSIX locks on it: a descriptor of
/// our own on the `-shm`, opened and closed, would silently drop the read marks and the write
/// lock of every connection of this process. So the descriptor is found once in
/// `/proc/self/fd` (matched by device and inode), re-checked with `fstat` before each use
/// (SQLite closes it when the process's last connection to the file closes, and the number
/// may then name another file), and never closed here.
///
/// Callable from any thread.
package final class WALIndexFile: Sendable {
    private let path: String
    /// The descriptor found last, with the identity it had.
    private let found = Mutex<(descriptor: Int32, identity: FileIdentity)?>(nil)

    /// The `-shm` file of the database at `databasePath`.
    package init(databasePath: String) {
        path = databasePath + "-shm"
    }

    /// Who holds the WAL write lock, as far as this process can see.
    package enum WriteLock: Equatable, Sendable {
        /// No other process holds it (this process may).
        case free
        /// Another process holds it: a commit of its own may be under way.
        case heldElsewhere(pid: Int32)
        /// Cannot tell (no descriptor of SQLite's found for the file).
        case unknown
    }

    /// Who holds the WAL write lock, as `F_GETLK` sees it (it never reports this process's own
    /// locks, which never conflict with their owner).
    package func writeLock() -> WriteLock {
        guard let descriptor = descriptor() else { return .unknown }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(LockHolder.walWriteLockOffset)
        lock.l_len = 1
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else { return .unknown }
        return lock.l_type == Int16(F_UNLCK) ? .free : .heldElsewhere(pid: lock.l_pid)
    }

    /// The WAL index header's change counter (`iChange`), which every commit to the database,
    /// by any connection of any process, moves by one (a checkpoint leaves it); nil when it
    /// cannot be read (no descriptor of SQLite's for the file). Read from the first copy of
    /// the header: a copy being written may read torn, which only makes it differ.
    package func changeCounter() -> UInt32? {
        guard let descriptor = descriptor() else { return nil }
        var value: UInt32 = 0
        let read = withUnsafeMutableBytes(of: &value) { bytes in
            pread(descriptor, bytes.baseAddress, bytes.count, off_t(Self.changeCounterOffset))
        }
        return read == MemoryLayout<UInt32>.size ? value : nil
    }

    /// Where `iChange` lies in the `-shm` file: the third 32-bit word of the WAL index header
    /// (see `WalIndexHdr` in SQLite's wal.c), in native byte order.
    static let changeCounterOffset = 8

    /// SQLite's descriptor for the file, when this process has one open.
    func descriptor() -> Int32? {
        found.withLock { found -> Int32? in
            if let current = found, FileIdentity(descriptor: current.descriptor) == current.identity {
                return current.descriptor
            }
            found = nil
            guard let identity = FileIdentity(path: path),
                let descriptor = Self.openDescriptor(of: identity)
            else { return nil }
            found = (descriptor, identity)
            return descriptor
        }
    }

    /// A descriptor of this process open on the file with `identity`, found in /proc/self/fd.
    static func openDescriptor(of identity: FileIdentity) -> Int32? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        for name in names {
            guard let descriptor = Int32(name), FileIdentity(descriptor: descriptor) == identity else { continue }
            return descriptor
        }
        return nil
    }
}

extension FileIdentity {
    /// The identity of the file open on `descriptor`, or nil when it is not open.
    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
