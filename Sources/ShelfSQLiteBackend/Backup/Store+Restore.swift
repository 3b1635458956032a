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
    /// the store there was linked to `NAME.before-restore-TIME` (UTC), which keeps it. At
    /// every moment `path` is either the old store or the whole restored one, so a crash or
    /// `kill -9` leaves nothing half-restored (at worst a hidden `.NAME.restore-…` file,
    /// removed by the next restore). Processes that open `path` afterwards see the restored
    /// data.
    /// - Throws: `StoreError`: `.invalidValue` when `backup` is not a shelf backup, is damaged,
    ///   or is `path` itself; `.newerDatabase` when a newer shelf made it; `.busy` when a
    ///   process has `path` open; `.database` when a file cannot be written. `path` is then
    ///   as it was.
    public static func restore(backup: String, toFile path: String) throws -> RestoreOutcome {
        let folder =
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        removeStaleRestoreCopies(in: folder, name: name)
        let temporary = folder + "/.\(name).restore-\(UUID().uuidString)"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
        let restored = try checkedBackup(backup, copiedTo: temporary, refusing: path)
        let users = FileUsers.processes(using: path)
        guard users.isEmpty else {
            throw StoreError(
                .busy,
                "\(path) is open in \(FileUsers.listed(users)); a restore cannot swap a store in use, so stop "
                    + (users.count == 1 ? "it" : "them") + ", then restore again (nothing was changed)")
        }
        var keptAs: String?
        if FileManager.default.fileExists(atPath: path) {
            // The old store must be whole in its main file before it is kept.
            if case .failed(let reason) = Database.mergeLeftoverWAL(path: path, timeout: WriteTimeout.defaultDuration) {
                throw StoreError(
                    .database,
                    "cannot merge \(path)-wal into \(path) before keeping it (\(reason)); nothing was changed")
            }
            let kept = keptName(for: path, now: Date())
            guard link(path, kept) == 0 else {
                throw StoreError(
                    .database, "cannot keep \(path) as \(kept): \(errnoText()); nothing was changed")
            }
            keptAs = kept
            // An empty -wal and a -shm nobody uses: the restored file must not meet them.
            unlink(path + "-wal")
            unlink(path + "-shm")
        }
        guard rename(temporary, path) == 0 else {
            throw StoreError(
                .database,
                "cannot move the restored store into place at \(path): \(errnoText()); \(path) is as it was")
        }
        try? makeDurable(folder)
        return RestoreOutcome(keptAs: keptAs, restored: restored)
    }

    /// Replaces the contents of this store with the backup at `backup`, in one transaction
    /// (as `copy(to:options:)` with `replace`): for a store that is not a local file, such as
    /// a PostgreSQL database. The backup is checked first, as `restore(backup:toFile:)`
    /// checks it, on a copy in the temporary folder. Refused while another process has this
    /// store open (naming it).
    /// - Returns: the copy's report; when `matches` is false nothing was committed.
    /// - Throws: as `restore(backup:toFile:)` and `copy(to:options:progress:)`.
    public func restore(
        from backup: String, progress: @escaping @Sendable (CopyProgress) -> Void = { _ in }
    ) async throws -> CopyReport {
        let temporary = NSTemporaryDirectory() + "/shelf-restore-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
        _ = try Self.checkedBackup(backup, copiedTo: temporary, refusing: path)
        let source = try Store(path: temporary)
        return try await source.copy(to: self, options: CopyOptions(replace: true), progress: progress)
    }

    /// Copies `backup` to `temporary` and checks it there (a shelf, sound, not newer;
    /// migrated when older; full-text indexes sound), leaving it closed as one file. Returns
    /// its counts and fingerprint.
    static func checkedBackup(_ backup: String, copiedTo temporary: String, refusing path: String?) throws
        -> CopyReport.Side
    {
        var backupStatus = stat()
        guard stat(backup, &backupStatus) == 0 else {
            throw StoreError(.invalidValue, "no backup at \(backup): \(errnoText()); check the path")
        }
        guard backupStatus.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(.invalidValue, "\(backup) is not a file; give the backup file shelf backup wrote")
        }
        if let path {
            var status = stat()
            if stat(path, &status) == 0, status.st_dev == backupStatus.st_dev, status.st_ino == backupStatus.st_ino {
                throw StoreError(.invalidValue, "\(backup) is the store itself; give a backup of it")
            }
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: backup + "-wal"))?[.size] as? Int, size > 0 {
            throw StoreError(
                .invalidValue,
                "\(backup) has a \(backup)-wal with data beside it: it is a store in use or not closed cleanly, not a "
                    + "backup; make one with shelf backup, or open it once with shelf to merge that in")
        }
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
            let input = FileHandle(forReadingAtPath: backup), let output = FileHandle(forWritingAtPath: temporary)
        else {
            throw StoreError(
                .database, "cannot copy \(backup) to \(temporary): \(errnoText()); check that the folder is writable")
        }
        do {
            defer {
                try? input.close()
                try? output.close()
            }
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
            try output.synchronize()
        } catch {
            throw StoreError(.database, "cannot copy \(backup) to \(temporary): \(error.localizedDescription)")
        }
        let notABackup = "\(backup) is not a shelf backup"
        let integrity: [String]
        do {
            integrity = try StoreError.translating {
                let connection = try Connection(path: temporary, readOnly: true)
                defer { connection.close() }
                let isShelf = try connection.fetchOne(
                    "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'shelf_migrations'"
                ) { _ in true }
                guard isShelf ?? false else {
                    throw StoreError(.invalidValue, "\(notABackup) (it has no shelf_migrations table)")
                }
                return try connection.fetch("PRAGMA integrity_check") { try $0.string(0) }
            }
        } catch let error as StoreError where error.code != .invalidValue {
            throw StoreError(.invalidValue, "\(notABackup) (\(error.message)); give the file shelf backup wrote")
        }
        guard integrity == ["ok"] else {
            throw StoreError(
                .invalidValue,
                "\(backup) is damaged (integrity_check: \(integrity.prefix(3).joined(separator: "; "))); "
                    + "restore from another backup")
        }
        let side = try checkOpened(temporary, backup: backup)
        // The checked copy must be one whole file before it moves into place.
        if case .failed(let reason) = Database.mergeLeftoverWAL(path: temporary, timeout: WriteTimeout.defaultDuration)
        {
            throw StoreError(.database, "cannot close the checked copy of \(backup) (\(reason)); nothing was changed")
        }
        return side
    }

    /// Opens the copy at `temporary` as a store (migrating an older one; refusing a newer
    /// one), checks its data, and returns its counts and fingerprint; the store is closed
    /// again on return.
    private static func checkOpened(_ temporary: String, backup: String) throws -> CopyReport.Side {
        let store: Store
        do {
            store = try Store(path: temporary)
        } catch let error as StoreError {
            throw StoreError(error.code, error.message.replacingOccurrences(of: temporary, with: backup))
        }
        let backend = store.backend
        do {
            try backend.checkIntegrity()
        } catch let error as StoreError {
            throw StoreError(.invalidValue, "\(backup) is damaged (\(error.message)); restore from another backup")
        }
        return try backend.withCopySnapshot { snapshot in try StoreCopier.side(of: snapshot) }
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
    private static func removeStaleRestoreCopies(in folder: String, name: String) {
        let prefix = ".\(name).restore-"
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where file.hasPrefix(prefix) {
            let full = folder + "/" + file
            guard FileUsers.processes(using: full).isEmpty else { continue }
            unlink(full)
        }
    }
}
