internal import CSQLite
internal import Foundation
internal import Logging
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// Closing a database, and what happens to its `-wal` and `-shm` when its last connection
/// closes.
extension Database {
    /// Closes every connection once the reads and writes in progress have ended; live
    /// queries stop. Reads and writes that start later throw `DatabaseError.closed`. When
    /// this was the last connection of any process to the file, SQLite has checkpointed the
    /// WAL into the file and deleted the `-wal` when this returns. Safe to call more than
    /// once. Blocks the calling thread while reads and writes in progress finish.
    package func close() {
        guard !closedFlag.exchange(true, ordering: .acquiringAndReleasing) else { return }
        changeTracker.stop()
        readers?.drain()
        writerLock.lock()
        defer { writerLock.unlock() }
        closeConnections()
        Diagnostics.logger.debug("closed \(path ?? "a private in-memory database")")
    }

    /// True once `close()` was called.
    package var isClosed: Bool { closedFlag.load(ordering: .acquiring) }

    /// Throws `DatabaseError.closed` once `close()` was called.
    package func checkOpen() throws {
        if isClosed { throw DatabaseError.closed(path: path) }
    }

    /// Closes the connections, readers first: no read or write may be running.
    func closeConnections() {
        let companions =
            removesFileOnDeinit
            ? nil : path.map { Companions(path: $0, opened: changeTracker.identity.withLock { $0 }) }
        changeTracker.stop()
        checkpointer?.uninstall(from: writer)
        checkpointer?.closeConnection()
        // The last connection to close checkpoints the WAL and deletes it, but only if it
        // can write: so the read-only readers close first and the writer last. Without this
        // order the data of every command stayed in the -wal file, and a copy of the main
        // file alone was an old database.
        readers?.close()
        writer.close()
        companions?.removeLeftovers()
        if let path, !removesFileOnDeinit { Self.removeCompanionsMadeAsReader(of: path) }
    }

    /// After this process's last connection to the database at `path` closed: when this
    /// process could only read the file (another user's, not writable here) and made its
    /// `-wal` and `-shm` to read it (SQLite does, in a folder it may write; they are then this
    /// user's, with the file's mode, and the file's owner can no longer write its own store:
    /// "attempt to write a readonly database", issue 25, F8), removes them, if no other process
    /// uses them and the `-wal` is empty (a reader writes none). As root SQLite gives them to
    /// the file's owner itself, so they are left.
    ///
    /// The `-shm`'s dead-man-switch byte (128), which every process using the files holds a
    /// read lock on, is locked for writing while they are removed: a process opening the
    /// database meanwhile finds it locked, takes that as busy, and opens them afresh after.
    static func removeCompanionsMadeAsReader(of path: String) {
        let me = geteuid()
        var file = stat()
        var shm = stat()
        var wal = stat()
        guard me != 0, stat(path, &file) == 0, file.st_uid != me, access(path, W_OK) != 0,
            lstat(path + "-shm", &shm) == 0, shm.st_mode & S_IFMT == S_IFREG, shm.st_uid == me,
            lstat(path + "-wal", &wal) == 0, wal.st_mode & S_IFMT == S_IFREG, wal.st_uid == me, wal.st_size == 0,
            // Another store of this process still has them open: its locks would go with ours.
            FileIdentity(path: path + "-shm").flatMap(WALIndexFile.openDescriptor(of:)) == nil
        else { return }
        let descriptor = open(path + "-shm", O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return }
        // Glibc's: `close` alone is the database's.
        defer { Glibc.close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        guard fcntl(descriptor, F_SETLK, &lock) == 0 else { return }
        // Checked again under the lock: nobody can have written the -wal since.
        guard lstat(path + "-wal", &wal) == 0, wal.st_size == 0 else { return }
        unlink(path + "-wal")
        unlink(path + "-shm")
        Diagnostics.logger.debug("removed the -wal and -shm this process made to read \(path), another user's")
    }

    /// The files beside the database as they were while it was open: when the database file
    /// was moved away meanwhile, they stay at the old path (SQLite checkpoints and deletes
    /// them only for a file that has not moved) and are removed by `removeLeftovers()`.
    struct Companions {
        let path: String
        let movedAway: Bool
        let wal: FileIdentity?
        let shm: FileIdentity?

        /// Looks at the files now, while the database is still open.
        init(path: String, opened: FileIdentity?) {
            self.path = path
            movedAway = opened != nil && FileIdentity(path: path) != opened
            wal = FileIdentity(path: path + "-wal")
            shm = FileIdentity(path: path + "-shm")
        }

        /// After the last connection closed: when the file had moved away, removes the `-wal`
        /// (only if it is empty: its frames were written into the moved file) and the `-shm`
        /// left at the old path, if they are still the ones this database used and no other
        /// process has them open. Nothing of a moved database then stays at its old path.
        func removeLeftovers() {
            guard movedAway, LockHolder.user(ofDatabase: path) == nil else { return }
            var info = stat()
            guard let wal, FileIdentity(path: path + "-wal") == wal, stat(path + "-wal", &info) == 0,
                info.st_size == 0
            else { return }
            unlink(path + "-wal")
            if let shm, FileIdentity(path: path + "-shm") == shm { unlink(path + "-shm") }
        }
    }

    /// How merging a `-wal` left beside a closed database went.
    package enum LeftoverMerge: Equatable, Sendable {
        /// Merged into the file (and removed), or there was nothing to merge.
        case merged
        /// Other connections were using the database: the last of them merges it.
        case othersAtWork
        /// The merge failed: SQLite's words for why (a full disk, a read-only file…).
        case failed(String)
    }

    /// Merges the `-wal` beside the database at `path` into it when every process has closed
    /// it and its last connection could not (another process was just opening it then, so
    /// that one's close, or this call, is the last one out). Opens no file that is not there:
    /// a missing database stays missing. Waits up to `timeout` for other processes' locks.
    package static func mergeLeftoverWAL(path: String, timeout: Duration = defaultWriteTimeout) -> LeftoverMerge {
        guard FileManager.default.fileExists(atPath: path) else { return .merged }
        let connection: Connection
        do {
            connection = try Connection(path: path, creating: false)
        } catch {
            return .failed("\(error)")
        }
        defer { connection.close() }
        connection.setBusyTimeout(milliseconds: Int32(clamping: milliseconds(timeout)))
        do {
            // (busy, frames in the WAL, frames copied): busy is 1 when readers or a writer of
            // other processes kept the checkpoint from finishing.
            let busy = try connection.fetchOne("PRAGMA wal_checkpoint(TRUNCATE)") { try $0.int64(0) }
            return busy == 0 ? .merged : .othersAtWork
        } catch let error as DatabaseError where error.code == DatabaseError.busy {
            return .othersAtWork
        } catch {
            return .failed("\(error)")
        }
    }
}
