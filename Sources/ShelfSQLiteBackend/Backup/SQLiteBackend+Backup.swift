internal import Foundation
internal import ShelfSQLite
package import ShelfStore

#if canImport(Glibc)
    internal import Glibc
#endif

extension SQLiteBackend {
    func backup(to path: String, shownAs name: String) async throws {
        guard let source = self.path else {
            throw StoreError(.invalidValue, "an in-memory store has no file to back up")
        }
        try StoreError.translating { try database.checkOpen() }
        try Store.checkBackupDestination(path, source: source, shownAs: name)
        // What is at the path now: the move checks it is still that (see `moveIntoPlace`).
        let found = Self.fileIdentity(path)
        let folder = (path as NSString).deletingLastPathComponent
        // Made empty and claimed first (VACUUM INTO fills an empty file), so that another
        // backup's cleanup never takes it for abandoned; the claim ends after the rename.
        let (temporary, claim) = try WorkFile.claimBackup(of: path, shownAs: name)
        defer { Glibc.close(claim) }
        do {
            try await database.withReader { connection in
                try connection.run("VACUUM INTO ?", temporary)
            }
            try refuseUnrestorable(in: temporary, store: source, backup: name)
            try BackupStamp.write(on: temporary)
            try Store.makeDurable(temporary)
            // Interrupted meanwhile (Ctrl-C): the old file stays.
            try Task.checkCancellation()
            // An older backup replaced keeps its mode (a new one has 0666 less the umask).
            var old = stat()
            if found != nil, stat(path, &old) == 0, chmod(temporary, old.st_mode & 0o7777) != 0 {
                throw StoreError(
                    .database, "cannot give the backup \(name) the mode of the file it replaces: \(Store.errnoText())")
            }
            try Self.moveIntoPlace(temporary, path, found: found, shownAs: name)
            try? Store.makeDurable(folder.isEmpty ? "." : folder)
        } catch {
            // With its journal: VACUUM INTO stopped by a full disk left `-journal` beside it.
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
            if let error = error as? StoreError { throw error }
            if let error = error as? DatabaseError, error.isDatabaseClosed { throw StoreError(error) }
            if let error = error as? DatabaseError, error.code == DatabaseError.full {
                var full = StoreError(
                    .database,
                    "cannot write the backup \(name): the disk holding it is full (SQLite: \(error.message)); free "
                        + "space there, or back up to another disk; no backup was written")
                full.markDiskFull()
                throw full
            }
            if let error = error as? DatabaseError {
                throw StoreError(
                    .database,
                    "cannot write the backup \(name): \(error.message); check that its folder exists, is writable "
                        + "and has room")
            }
            throw error
        }
    }

    /// A file's device, inode, size and change time; nil when there is none.
    private static func fileIdentity(_ path: String) -> [Int]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [
            Int(status.st_dev), Int(status.st_ino), Int(status.st_size), status.st_ctim.tv_sec,
            status.st_ctim.tv_nsec,
        ]
    }

    /// Moves the finished backup at `temporary` to `path`, which held `found` when the backup
    /// began (nil: nothing). A file made there meanwhile, or the old backup written to or
    /// opened meanwhile (another process took it for a store), is kept and the backup refused:
    /// a rename would replace it without a word (the hostile tester's items added to such a
    /// file were lost).
    private static func moveIntoPlace(_ temporary: String, _ path: String, found: [Int]?, shownAs name: String) throws {
        let meanwhile =
            "was changed by another process while the backup ran; it is kept as it is and no backup was written. "
            + "Check what it holds, then back up again (to another file if it is a store now)"
        guard found != nil else {
            if link(temporary, path) == 0 {
                unlink(temporary)
                return
            }
            let failure = errno
            if failure == EEXIST { throw StoreError(.conflict, "\(name) \(meanwhile)") }
            // A file system without hard links: the rename is all there is.
            guard failure == EPERM || failure == ENOTSUP || failure == EOPNOTSUPP, rename(temporary, path) == 0 else {
                throw StoreError(.database, "cannot move the backup into place at \(name): \(Store.errnoText())")
            }
            return
        }
        guard fileIdentity(path) == found, LockHolder.user(ofDatabase: path) == nil else {
            throw StoreError(.conflict, "\(name) \(meanwhile)")
        }
        guard rename(temporary, path) == 0 else {
            throw StoreError(.database, "cannot move the backup into place at \(name): \(Store.errnoText())")
        }
    }

    /// Throws when the snapshot at `temporary` lacks a table, index or trigger this shelf's
    /// migrations make, or holds rows whose user is gone: `restore` refuses such a backup, so writing it would be a backup that cannot be restored, found
    /// out when it is needed (the hostile tester's F5). Said now, while the store can be fixed.
    private func refuseUnrestorable(in temporary: String, store source: String, backup path: String) throws {
        let (orphans, missing) = try StoreError.translating {
            let connection = try Connection(path: temporary, readOnly: true)
            defer { connection.close() }
            return (try Store.orphanRows(connection), try SQLiteSchemaObjects.missing(connection))
        }
        // Restore refuses a backup without them (the hostile tester's F8), so none is written.
        if !missing.isEmpty {
            let quoted = ShellQuoting.quoted(source)
            throw StoreError(
                .invalidValue,
                "\(source) lacks \(SQLiteSchemaObjects.listed(missing)), which this shelf's schema has (another "
                    + "program dropped \(missing.count == 1 ? "it" : "them"); a missing search trigger leaves search "
                    + "stale), and restore refuses a backup without \(missing.count == 1 ? "it" : "them"), so no "
                    + "backup was written to \(path). Copy the store into a new one, which makes the whole schema and "
                    + "rebuilds the search index (shelf copy \(quoted) NEW.sqlite), check it, then put it in place "
                    + "(shelf restore NEW.sqlite --db \(quoted)) and back up again")
        }
        guard !orphans.isEmpty else { return }
        let quoted = ShellQuoting.quoted(source)
        throw StoreError(
            .invalidValue,
            "\(source) holds \(Store.orphansListed(orphans)) whose user is gone (another program deleted users with "
                + "foreign keys off; `sqlite3 \(quoted) 'PRAGMA foreign_key_check'` lists them), and restore refuses "
                + "a backup holding them, so no backup was written to \(path). Delete those rows or point them at an "
                + "existing user with sqlite3, then back up again")
    }
}

extension Store {
    /// Throws, changing nothing, unless `path` may receive a backup: it must not be `source`
    /// (the store's own file, when it has one) or one of its companions, a database in use, a
    /// device, or anything but a missing file or an older shelf backup whose stamp
    /// (`BackupStamp`) is there and still matches what it holds (untouched since it was written).
    /// Messages name the destination `name` (what the user gave; `path` by default).
    package static func checkBackupDestination(_ path: String, source: String?, shownAs name: String? = nil) throws {
        let name = name ?? path
        guard !path.isEmpty else {
            throw StoreError(.invalidValue, "the backup's path is empty; give the file to write, such as backup.sqlite")
        }
        do {
            try OutputSafety.refuseCompanionName(path, protecting: source.map { [$0] } ?? [])
        } catch {
            // Its message names the file written; the user gave `name`.
            var message = error.description
            if message.hasPrefix("refusing to write \(path):") {
                message = "refusing to write \(name):" + message.dropFirst("refusing to write \(path):".count)
            }
            throw StoreError(.invalidValue, message)
        }
        // Replacing a database that a process has open, or whose WAL holds frames, would
        // leave that WAL beside the copy, to be read as the copy's pages: a corrupt backup.
        if let user = LockHolder.user(ofDatabase: path) {
            throw StoreError(
                .invalidValue,
                "\(name) is open in \(user); a backup cannot replace a database in use, so stop it or choose another file"
            )
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int, size > 0 {
            throw StoreError(
                .invalidValue,
                "\(name) has a \(path)-wal with data beside it (it was not closed cleanly); open it once with shelf "
                    + "or sqlite3 to merge that in, or choose another file")
        }
        var target = stat()
        guard stat(path, &target) == 0 else { return }  // a new file
        for suffix in ["", "-wal", "-shm", "-journal"] {
            guard let source else { break }
            var own = stat()
            if stat(source + suffix, &own) == 0, own.st_dev == target.st_dev, own.st_ino == target.st_ino {
                throw StoreError(
                    .invalidValue,
                    "\(name) is this store's own \(suffix.isEmpty ? "database file" : "\(suffix) file"); "
                        + "back up to another file")
            }
        }
        guard target.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(.invalidValue, "\(name) is not a regular file; back up to a file")
        }
        guard target.st_size > 0 else { return }
        // Anything but a shelf database (a CSV, another program's SQLite file, a damaged
        // file) is left alone, with one message: what it is not, and what to do.
        let notABackup = StoreError(
            .invalidValue,
            "\(name) is not a shelf backup; choose another file (a backup replaces only an older shelf backup)")
        // Looked at immutable: no process has it open and its WAL is empty (both checked
        // above), and a read-only connection to a WAL database would leave an empty -wal and a
        // -shm beside it when the backup is refused (the hostile tester's finding).
        do {
            try refuseForeignDatabase(at: path, immutable: true)
        } catch {
            throw notABackup
        }
        let isShelf =
            (try? StoreError.translating { () -> Bool in
                let connection = try Connection(path: path, readOnly: true, immutable: true)
                defer { connection.close() }
                return try connection.fetchOne(
                    "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'shelf_migrations'"
                ) { _ in true } ?? false
            }) ?? false
        guard isShelf else { throw notABackup }
        // Replaced only when shelf can prove it is its own backup, untouched since: its stamp
        // is there and still matches what it holds (a backup only read since, even opened as a
        // store, keeps it). Anything else may hold data of its own, maybe newer than this
        // store's: a file in WAL mode (header bytes 18 and 19 are 2) written as a store since
        // (seen: another store replaced, with its newest item, and no word), a stamped file the
        // sqlite3 shell wrote to, and a shelf database with no stamp at all (one whose stamp was
        // cleared, then edited: the hostile tester's finding; or one that never was a backup).
        let (stamped, matches) = BackupStamp.check(path)
        guard !(stamped && matches) else { return }
        var header = [UInt8](repeating: 0, count: 20)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            defer { closeDescriptor(descriptor) }
            _ = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 20, 0) }
        }
        if header[18] == 2 || header[19] == 2 || stamped {
            throw StoreError(
                .invalidValue,
                "\(name) is a shelf store in use as one (written to since it was a backup, if it ever was one: a "
                    + "backup only read since is replaced), not a backup: a backup replaces only an older backup. Choose another file; if you "
                    + "mean to replace that store with this one, use shelf copy --replace")
        }
        throw StoreError(
            .invalidValue,
            "\(name) is a shelf database without the stamp every shelf backup carries (PRAGMA user_version is 0: "
                + "another program cleared it, or shelf never wrote it as a backup), so shelf cannot tell that it "
                + "is an untouched backup and does not replace it: it may hold changes of its own. Choose another "
                + "file; if you are sure it holds nothing you need, move it away (or delete it) and back up again")
    }

    /// Flushes the file or folder at `path` to disk.
    package static func makeDurable(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError(.database, "cannot open \(path): \(errnoText())") }
        defer { closeDescriptor(descriptor) }
        guard fsync(descriptor) == 0 else { throw StoreError(.database, "cannot flush \(path): \(errnoText())") }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

extension Store {
    /// What to tell a person when the database at `path`, closed by every process, still has
    /// a `-wal` with frames beside it; nil when there is nothing to say.
    ///
    /// A close that finds other processes at the file (opening it, writing) leaves the WAL to
    /// the last of them, and that is no failure: so the WAL is merged here, as the last one out
    /// (waiting for others' locks as writes do). Only a merge that fails for another reason
    /// (a full disk, a read-only file) is worth a warning, in SQLite's words; a copy of the main
    /// file alone would then be an old or damaged database.
    package static func leftoverWALWarning(path: String, timeout: Duration = WriteTimeout.defaultDuration) -> String? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int, size > 0,
            LockHolder.user(ofDatabase: path) == nil
        else { return nil }
        guard case .failed(let reason) = Database.mergeLeftoverWAL(path: path, timeout: timeout) else {
            return nil
        }
        return "Warning: \(path)-wal (\(size) bytes) could not be merged into the database (\(reason)); "
            + "until it is, the database is that file and its -wal together: copy both, or fix that and run "
            + "any shelf command on it again"
    }

    /// Why the `-wal` of a copy's work file at `path` (closed, no other process at it) could
    /// not be merged into the file, or nil when it was (or there was nothing to merge): SQLite's
    /// words, and the free bytes of its disk and the `-wal`'s size when the disk is full (the
    /// merge grows the file by up to that much before the `-wal` goes). A copy whose `-wal`
    /// stays is not finished: the file alone is not the copy.
    package static func unmergedCopyWAL(path: String) -> (reason: String, full: (free: Int, wal: Int)?)? {
        guard let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int, wal > 0
        else { return nil }
        guard case .failed(let reason) = Database.mergeLeftoverWAL(path: path, timeout: WriteTimeout.defaultDuration)
        else { return nil }
        var disk = statvfs()
        guard statvfs(path, &disk) == 0 else { return (reason, nil) }
        let free = Int(disk.f_bavail) * Int(disk.f_frsize)
        return (reason, free < wal ? (free, wal) : nil)
    }
}

/// `close(2)`, out of reach of `Store.close()`.
private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
}

/// What tells a backup from a store (issue 25). A backup is written in rollback-journal mode;
/// opening it as a store (even `shelf items list --db BACKUP`) turns it to WAL mode, migrates
/// it and checkpoints, so its mode alone made the next `shelf backup` over it refuse it as "a
/// shelf store in use". So every backup carries, in `PRAGMA user_version` (shelf uses it for
/// nothing else, and opening keeps it), a hash of its change counters (`shelf_changes`, moved
/// by every write of users, items and views, the sqlite3 shell's too) and its sequences
/// (`sqlite_sequence`: every table's last ID and the change log's position). A file whose
/// stamp still matches was only read since it was written, and is replaced as a backup; one
/// written since (a store in use as one) no longer matches, and is refused as before.
enum BackupStamp {
    /// The stamp of the shelf database on `connection`: positive, never 0 (what every file
    /// that is not a stamped backup holds).
    static func value(on connection: Connection) throws -> Int32 {
        let text =
            try connection.fetchOne(
                """
                SELECT coalesce((SELECT group_concat(table_name || ':' || counter || ':' || row_count, ',')
                    FROM (SELECT table_name, counter, row_count FROM shelf_changes ORDER BY table_name)), '')
                  || '|' || coalesce((SELECT group_concat(name || ':' || seq, ',')
                    FROM (SELECT name, seq FROM sqlite_sequence ORDER BY name, seq)), '')
                """, arguments: []
            ) { try $0.string(0) } ?? ""
        // FNV-1a: stable across runs and builds (Swift's Hasher is seeded per process).
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int32(bitPattern: (hash & 0x7FFF_FFFF) | 1)
    }

    /// Stamps the backup at `path` (closed, in rollback-journal mode, which this keeps).
    static func write(on path: String) throws {
        try StoreError.translating {
            let connection = try Connection(path: path, creating: false)
            defer { connection.close() }
            let stamp = try value(on: connection)
            try connection.execute("PRAGMA user_version = \(stamp)")
        }
    }

    /// Whether the shelf database at `path` (no process has it open, its WAL is empty) still
    /// holds its stamp: a backup only read since it was written. Looked at immutable, as
    /// `checkBackupDestination` looks at it (nothing made beside it).
    static func matches(_ path: String) -> Bool { check(path).matches }

    /// Whether the shelf database at `path` carries a stamp at all, and whether it still
    /// matches what the file holds (both false when it cannot be read).
    static func check(_ path: String) -> (stamped: Bool, matches: Bool) {
        (try? StoreError.translating { () -> (Bool, Bool) in
            let connection = try Connection(path: path, readOnly: true, immutable: true)
            defer { connection.close() }
            let stamp = try connection.fetchOne("PRAGMA user_version", arguments: []) { try $0.int64(0) } ?? 0
            let expected = Int64(try value(on: connection))
            return (stamp != 0, stamp != 0 && stamp == expected)
        }) ?? (false, false)
    }
}
