internal import Foundation
internal import ShelfSQLite
public import ShelfStore

#if canImport(Glibc)
    internal import Glibc
#endif

/// What `Store.restore(backup:toFile:)` did.
public struct RestoreOutcome: Sendable, Hashable {
    /// Where the replaced store was kept (`NAME.before-restore-TIME`), or nil when there was
    /// no store at the path.
    public let keptAs: String?
    /// Rows per table of the restored store, and their fingerprint (as `CopyReport` counts).
    public let restored: CopyReport.Side
}

extension Store {
    /// Puts the backup at `backup` in place of the SQLite store at `path`, atomically.
    ///
    /// In order: the backup is checked (a shelf database, `PRAGMA integrity_check`, not made
    /// by a newer shelf; a backup from an older shelf is migrated) on a copy written beside
    /// `path`, whose full-text indexes are checked too; then the restore is refused while any
    /// process has `path` open (naming them); then the copy is renamed over `path`, after
    /// the store there was linked to `NAME.before-restore-TIME` (UTC), which keeps it (with its
    /// `-wal`, when that holds commits). At every moment `path` is either the old store or the
    /// whole restored one, so a crash or `kill -9` leaves nothing half-restored (at worst a
    /// hidden `.NAME.restore-…` file, removed by the next restore). Processes that open `path`
    /// afterwards see the restored data.
    ///
    /// The old store's write lock is held from before its last IDs and change-log position are
    /// read until the restored file is in place, so no write is lost: a process that opened
    /// the old store anyway (after the check for processes) either committed before the lock
    /// (its commit is in the kept file) or waits for it and then finds the file replaced and
    /// fails, changing nothing. IDs and change-log positions go on from the replaced store's:
    /// nothing the old store handed out is handed out again.
    ///
    /// `isCancelled` is asked just before the swap: when it says true, nothing is changed and
    /// this throws `CancellationError`.
    ///
    /// When `path` is a symbolic link (or a chain of them), the store it points to is
    /// restored, in its own folder, and the link is left as it is.
    /// - Throws: `StoreError`: `.invalidValue` when `backup` is not a shelf backup, is damaged,
    ///   or is `path` itself; `.newerDatabase` when a newer shelf made it; `.busy` when a
    ///   process has `path` open; `.database` when a file cannot be written. `path` is then
    ///   as it was.
    public static func restore(backup: String, toFile path: String, isCancelled: () -> Bool = { false }) throws
        -> RestoreOutcome
    {
        // Renaming over a link would replace the link itself with a file and leave the store
        // it points to behind: the user's setup broken, the old store still in use elsewhere.
        let path = try linkTarget(of: path)
        let folder =
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        removeStaleRestoreCopies(in: folder, prefix: ".\(name).restore-")
        let temporary = folder + "/.\(name).restore-\(UUID().uuidString)"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
        let restored = try checkedBackup(backup, copiedTo: temporary, refusing: path)
        try refuseIfInUse(path)
        var keptAs: String?
        // The restored store takes the replaced one's permissions (a store shared by a group
        // stays writable by it) and, where this process may, its owner.
        var replaced = stat()
        if stat(path, &replaced) == 0 {
            _ = chmod(temporary, replaced.st_mode & 0o7777)
            _ = chown(temporary, replaced.st_uid, replaced.st_gid)
        }
        if isCancelled() { throw CancellationError() }
        if FileManager.default.fileExists(atPath: path) {
            // The old store as whole in its main file as others let it be before it is kept
            // (what a writer commits after this goes with its -wal, linked beside it).
            if case .failed(let reason) = Database.mergeLeftoverWAL(path: path, timeout: WriteTimeout.defaultDuration) {
                throw StoreError(
                    .database,
                    "cannot merge \(path)-wal into \(path) before keeping it (\(reason)); nothing was changed")
            }
            keptAs = try swap(temporary, into: path, isCancelled: isCancelled)
        } else {
            if isCancelled() { throw CancellationError() }
            guard rename(temporary, path) == 0 else {
                throw StoreError(
                    .database,
                    "cannot move the restored store into place at \(path): \(errnoText()); \(path) is as it was")
            }
        }
        try? makeDurable(folder)
        return RestoreOutcome(keptAs: keptAs, restored: restored)
    }

    /// Throws `.busy`, naming them, while other processes have the store at `path` open.
    private static func refuseIfInUse(_ path: String) throws {
        let users = FileUsers.processes(using: path)
        guard users.isEmpty else {
            throw StoreError(
                .busy,
                "\(path) is open in \(FileUsers.listed(users)); a restore cannot swap a store in use, so stop "
                    + (users.count == 1 ? "it" : "them") + ", then restore again (nothing was changed)")
        }
    }

    /// Moves `temporary` into `path`'s place while holding the old store's write lock (see
    /// `restore(backup:toFile:isCancelled:)`), keeping the old store as `NAME.before-restore-…`;
    /// returns that name.
    private static func swap(_ temporary: String, into path: String, isCancelled: () -> Bool) throws -> String {
        let lock: Connection
        do {
            lock = try Connection(path: path, creating: false)
        } catch {
            throw StoreError(.database, "cannot open \(path) to lock it for the restore: \(error); nothing was changed")
        }
        // Closed after the swap: it must not delete `path-wal` by name, the restored store's then.
        lock.keepWALOnClose()
        defer { lock.close() }
        lock.setBusyTimeout(milliseconds: Int32(clamping: WriteTimeout.defaultDuration.components.seconds * 1000))
        do {
            try lock.beginImmediate()
        } catch {
            throw StoreError(
                .busy,
                "another process kept writing to \(path) (its write lock was not free within "
                    + "\(WriteTimeout.text(WriteTimeout.defaultDuration))); stop it, then restore again (nothing was changed)"
            )
        }
        defer { lock.rollbackIfNeeded() }
        // Positions in the change log and IDs never go back: a client that followed the old
        // store to position N (or holds item 101) must not be handed the restored store's own
        // N, N+1… (other rows under the same numbers) as news, nor a new item 101.
        try continueChangeLog(from: lock, in: temporary, path: path)
        if isCancelled() { throw CancellationError() }
        // Asked again with the lock held, the moment before the swap: a process that opened the
        // store since the first look (it could not commit since the lock, but would go on
        // reading the old file).
        try refuseIfInUse(path)
        let kept = keptName(for: path, now: Date())
        guard link(path, kept) == 0 else {
            throw StoreError(.database, "cannot keep \(path) as \(kept): \(errnoText()); nothing was changed")
        }
        // Commits in the -wal that the merge could not take in (others reading) stay with
        // the kept store.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int, size > 0 {
            guard link(path + "-wal", kept + "-wal") == 0 else {
                let reason = errnoText()
                unlink(kept)
                throw StoreError(
                    .database, "cannot keep \(path)-wal as \(kept)-wal: \(reason); nothing was changed")
            }
        }
        // The -wal and -shm are the old store's: the restored file must not meet them.
        unlink(path + "-wal")
        unlink(path + "-shm")
        guard rename(temporary, path) == 0 else {
            throw StoreError(
                .database,
                "cannot move the restored store into place at \(path): \(errnoText()); the store is kept whole as "
                    + "\(kept): move it back to \(path) (with \(kept)-wal, if any, as \(path)-wal)")
        }
        return kept
    }

    /// Moves the change log of the store at `temporary` past the last position of the old
    /// store (read on `old`, in its transaction; see `SQLiteChangeLog.moveSequence`), and its
    /// ID sequences past the largest IDs the old store handed out (`SQLiteIDSequences`). An
    /// old store whose log cannot be read (not a shelf, damaged) has no positions anyone
    /// follows: nothing to do; a table of it that cannot be read (older than the table) has
    /// handed out no ID anyone holds: it is skipped.
    private static func continueChangeLog(from old: Connection, in temporary: String, path: String) throws {
        let position: Int64
        var last: [(table: CopyTable, id: Int64)] = []
        do {
            position = try SQLiteChangeLog.lastSequence(old)
        } catch {
            return
        }
        for table in CopyTable.allCases {
            guard let id = try? SQLiteIDSequences.lastID(of: table, on: old) else { continue }
            last.append((table, id))
        }
        do {
            let connection = try Connection(path: temporary, creating: false)
            defer { connection.close() }
            try connection.transaction {
                try SQLiteChangeLog.moveSequence(past: position, on: connection)
                for (table, id) in last { try SQLiteIDSequences.advance(table, past: id, on: connection) }
            }
        } catch {
            throw StoreError(
                .database,
                "cannot carry the change log's position (\(position)) and the IDs in use over to the restored "
                    + "store: \(error); nothing was changed")
        }
    }

    /// Replaces the contents of this store with the backup at `backup`, in one transaction
    /// (as `copy(to:options:)` with `replace`): for a store that is not a local file, such as
    /// a PostgreSQL database. The backup is checked first, as `restore(backup:toFile:)`
    /// checks it, on a copy in the temporary folder. Refused while another process has this
    /// store open (naming it).
    ///
    /// With `keptAs` (a path where no file is), what the store holds is first written there as
    /// a SQLite shelf store that `restore(from:)` (or `shelf restore`) puts back: read inside
    /// the restore's own transaction, after its lock and its check for other processes, so it
    /// holds exactly the rows the restore replaces (none, for an empty store: the file is then
    /// an empty store). It is made as a hidden file beside `keptAs` and moved there once the
    /// restore is committed; when the restore fails or differs, no file is left. Without it,
    /// nothing of the replaced contents is kept.
    /// - Returns: the copy's report; when `matches` is false nothing was committed.
    /// - Throws: as `restore(backup:toFile:)` and `copy(to:options:progress:)`; `.database`
    ///   when `keptAs` cannot be written (then nothing was replaced), or exists already.
    public func restore(
        from backup: String, keepingReplacedAs keptAs: String? = nil,
        progress: @escaping @Sendable (CopyProgress) -> Void = { _ in }
    ) async throws -> CopyReport {
        // A restore killed with `kill -9` left its copy of the backup (as big as the backup)
        // in the temporary folder for good: tests alone left 90 of them, 758 MB, in a day.
        let temporaryFolder = NSTemporaryDirectory()
        Self.removeStaleRestoreCopies(in: temporaryFolder, prefix: Self.temporaryRestorePrefix)
        let temporary = temporaryFolder + "/\(Self.temporaryRestorePrefix)\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
        _ = try Self.checkedBackup(backup, copiedTo: temporary, refusing: path)
        let source = try Store(path: temporary)
        var options = CopyOptions(replace: true)
        options.purpose = .restore(backup: backup)
        guard let keptAs else {
            return try await source.copy(to: self, options: options, progress: progress)
        }
        // lstat: a link (even one pointing nowhere) is there too; the kept file is linked into
        // place at the end, and a link in the way would fail that after the restore.
        var existing = stat()
        if lstat(keptAs, &existing) == 0 {
            throw StoreError(
                .database,
                "\(keptAs) exists already; name a new file to keep what \(location) holds in; nothing was restored")
        }
        let folder =
            (keptAs as NSString).deletingLastPathComponent.isEmpty
            ? "." : (keptAs as NSString).deletingLastPathComponent
        let prefix = ".\((keptAs as NSString).lastPathComponent).keep-"
        WorkFile.removeAbandoned(in: folder, prefix: prefix)
        let work = folder + "/" + prefix + UUID().uuidString
        guard let claim = WorkFile.create(work) else {
            throw StoreError(
                .database,
                "cannot write \(keptAs), to keep what \(location) holds: \(Self.errnoText()); check that the folder \(folder) "
                    + "exists, is writable and has room, or keep it elsewhere; nothing was restored")
        }
        // Runs after the removal below: the claim ends once the file is gone.
        defer { Glibc.close(claim) }
        var leaveWork = false
        defer { if !leaveWork { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(work + suffix) } } }
        // A full disk where the kept file goes fails its migrations or its rows: said as that
        // (it said "migration 0001_… failed and was rolled back", and named the hidden work
        // file), with where, what to do, and that nothing was restored.
        let keepDiskFull = StoreError(
            .database,
            "cannot write \(keptAs), to keep what \(location) holds before the restore: the disk holding \(folder) is "
                + "full (SQLite: database or disk is full); free space there, or keep it on another disk (or keep "
                + "nothing); nothing was restored: \(location) is as it was")
        let keep: Store
        do {
            keep = try Store(path: work)
        } catch let error as StoreError where error.isDiskFull {
            throw keepDiskFull
        }
        let report: CopyReport
        do {
            report = try await source.copy(to: self, options: options, keepingReplacedIn: keep, progress: progress)
        } catch let error as StoreError where error.isDiskFull && error.message.contains(work) {
            await keep.close()
            throw keepDiskFull
        } catch {
            await keep.close()
            throw error
        }
        // Closed, its WAL is merged into the file: one file moves into place.
        await keep.close()
        guard report.matches else { return report }
        // A link, not a rename: a file another process made at `keptAs` meanwhile stays.
        guard link(work, keptAs) == 0 || (errno != EEXIST && rename(work, keptAs) == 0) else {
            // The restore stands: what it replaced is only in the work file now, so it stays.
            leaveWork = true
            throw StoreError(
                .database,
                "\(location) was restored from \(backup), but what it held cannot be moved from \(work) to \(keptAs): "
                    + "\(Self.errnoText()); move that file yourself (mv) to keep it")
        }
        return report
    }

    /// `NAME.before-restore-YYYYMMDDTHHMMSSZ`, with `-2`, `-3`… when taken.
    private static func keptName(for path: String, now: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = "\(path).before-restore-\(formatter.string(from: now))"
        var candidate = base
        var number = 2
        while FileManager.default.fileExists(atPath: candidate) {
            candidate = "\(base)-\(number)"
            number += 1
        }
        return candidate
    }

    /// Removes `.NAME.restore-…` files a killed restore left in `folder`, unless in use.
    /// The start of the name of the backup's copy that `restore(from:keepingReplacedAs:progress:)`
    /// checks and reads, in the temporary folder.
    static let temporaryRestorePrefix = "shelf-restore-"

    /// Removes the files in `folder` whose names start with `prefix` that no process has open:
    /// what restores killed before their cleanup left.
    private static func removeStaleRestoreCopies(in folder: String, prefix: String) {
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where file.hasPrefix(prefix) {
            let full = folder + "/" + file
            guard FileUsers.processes(using: full).isEmpty else { continue }
            unlink(full)
        }
    }
}
