internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

#if canImport(Glibc)
    internal import Glibc
#endif

/// How a restore checks its backup before anything is replaced (`Store+Restore.swift`).
extension Store {
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
        try refuseNonDatabase(backup, size: Int(backupStatus.st_size))
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
                .database,
                "cannot copy \(backup) to \(temporary): \(errnoText()); check that the folder is writable; nothing was "
                    + "changed")
        }
        do {
            defer {
                try? input.close()
                try? output.close()
            }
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
            try output.synchronize()
        } catch {
            // Foundation's words alone ("There isn't enough space.") named neither the disk nor
            // the outcome (issue 25).
            let folder = (temporary as NSString).deletingLastPathComponent
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            let full =
                (error as NSError).code == NSFileWriteOutOfSpaceError
                || ((error as NSError).domain == NSPOSIXErrorDomain && (error as NSError).code == Int(ENOSPC))
                || (underlying?.domain == NSPOSIXErrorDomain && underlying?.code == Int(ENOSPC))
            guard full else {
                throw StoreError(
                    .database,
                    "cannot copy \(backup) to \(temporary) to check it: \(error.localizedDescription); nothing was "
                        + "changed")
            }
            var diskFull = StoreError(
                .database,
                "cannot copy \(backup) to \(temporary) to check it: the disk holding \(folder) is full (the restore "
                    + "checks a whole copy of the backup there before it swaps it in); free space there, then restore "
                    + "again; nothing was changed")
            diskFull.markDiskFull()
            throw diskFull
        }
        let notABackup = "\(backup) is not a shelf backup"
        let integrity: [String]
        let orphans: [(table: String, rows: Int)]
        do {
            (integrity, orphans) = try StoreError.translating {
                let connection = try Connection(path: temporary, readOnly: true)
                defer { connection.close() }
                let isShelf = try connection.fetchOne(
                    "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'shelf_migrations'"
                ) { _ in true }
                guard isShelf ?? false else {
                    throw StoreError(
                        .invalidValue,
                        "\(notABackup): it is a SQLite database of another program (it has no shelf_migrations "
                            + "table). Give the file shelf backup wrote; nothing was changed")
                }
                let integrity = try connection.fetch("PRAGMA integrity_check") { try $0.string(0) }
                // Rows whose owner is gone (deleted by a program with foreign keys off): export
                // would drop them without a word and a copy would fail on them.
                return (integrity, try orphanRows(connection))
            }
        } catch let error as StoreError where error.code == .corrupt && isSQLiteFile(temporary) {
            throw damaged(backup, "SQLite cannot read it (the database disk image is malformed)")
        } catch let error as StoreError where error.code != .invalidValue {
            throw StoreError(
                .invalidValue,
                "\(notABackup): SQLite cannot open it as a database (\(error.message)). Give the file shelf backup "
                    + "wrote (shelf backup --db STORE FILE makes one); nothing was changed")
        }
        guard integrity == ["ok"] else {
            throw damaged(backup, "SQLite's integrity_check reports \(integrity.prefix(3).joined(separator: "; "))")
        }
        guard orphans.isEmpty else {
            throw StoreError(
                .invalidValue,
                "\(backup) holds \(orphansListed(orphans)) whose user is gone (PRAGMA foreign_key_check lists "
                    + "them): restoring it would lose them without a word. Restore from another backup, or delete "
                    + "those rows or point them at an existing user in a copy of \(backup) with sqlite3, then restore "
                    + "that copy; nothing was changed")
        }
        let side = try checkOpened(temporary, backup: backup)
        // The checked copy must be one whole file before it moves into place.
        if case .failed(let reason) = Database.mergeLeftoverWAL(path: temporary, timeout: WriteTimeout.defaultDuration)
        {
            throw StoreError(.database, "cannot close the checked copy of \(backup) (\(reason)); nothing was changed")
        }
        // Checked once migrated: a migration of an older backup makes some objects again.
        try refuseMissingObjects(temporary, backup: backup)
        return side
    }

    /// Throws, naming them, when the store at `temporary` (the checked copy of `backup`) lacks
    /// a table, index or trigger this shelf's migrations make.
    static func refuseMissingObjects(_ temporary: String, backup: String) throws {
        let missing = try StoreError.translating {
            let connection = try Connection(path: temporary, readOnly: true)
            defer { connection.close() }
            return try SQLiteSchemaObjects.missing(connection)
        }
        guard missing.isEmpty else {
            let quoted = ShellQuoting.quoted(backup)
            throw StoreError(
                .invalidValue,
                "\(backup) lacks \(SQLiteSchemaObjects.listed(missing)), which this shelf's schema has (another "
                    + "program dropped \(missing.count == 1 ? "it" : "them")); restored as it is, the store would go "
                    + "wrong without a word (a missing search trigger leaves search stale). Copy it into a new store, "
                    + "which makes the whole schema and rebuilds the search index (shelf copy \(quoted) NEW.sqlite), "
                    + "then restore that; or restore another backup. Nothing was changed")
        }
    }

    /// The rows, by table, whose user is gone (deleted by a program with foreign keys off), as
    /// `PRAGMA foreign_key_check` finds them.
    static func orphanRows(_ connection: Connection) throws -> [(table: String, rows: Int)] {
        try connection.fetch(
            "SELECT \"table\", count(*) FROM pragma_foreign_key_check GROUP BY \"table\" ORDER BY \"table\""
        ) { (table: try $0.string(0), rows: Int(try $0.int64(1))) }
    }

    /// `orphanRows` in words: "1 items row and 2 saved_views rows".
    static func orphansListed(_ orphans: [(table: String, rows: Int)]) -> String {
        FileUsers.listed(orphans.map { "\($0.rows) \($0.table) row\($0.rows == 1 ? "" : "s")" })
    }

    /// Opens the copy at `temporary` as a store (migrating an older one; refusing a newer
    /// one), checks its data, and returns its counts and fingerprint; the store is closed
    /// again on return.
    static func checkOpened(_ temporary: String, backup: String) throws -> CopyReport.Side {
        let store: Store
        do {
            store = try Store(path: temporary)
        } catch let error as StoreError {
            throw openFailure(error, temporary: temporary, backup: backup)
        }
        let backend = store.backend
        do {
            try backend.checkIntegrity()
        } catch let error as StoreError {
            throw damaged(backup, error.message)
        }
        do {
            return try backend.withCopySnapshot { snapshot in try StoreCopier.side(of: snapshot) }
        } catch {
            // A table another program dropped fails this read before the schema check can name
            // it ("no such table: saved_views"): name it.
            try refuseMissingObjects(temporary, backup: backup)
            throw error
        }
    }

    /// The file `path` names once every symbolic link on the way is followed (see
    /// `OutputSafety.linkTarget(of:)`). The target need not exist yet (a dangling link names
    /// where the store goes).
    static func linkTarget(of path: String) throws -> String {
        do {
            return try OutputSafety.linkTarget(of: path)
        } catch {
            throw StoreError(.invalidValue, error.description + "; nothing was changed")
        }
    }

    /// Throws, saying what the file is, when `backup` (`size` bytes) cannot be a backup: it is
    /// empty, or does not start as every SQLite database does (a text file, a compressed
    /// file). SQLite would take an empty file for an empty database, and another file for a
    /// damaged one.
    static func refuseNonDatabase(_ backup: String, size: Int) throws {
        let advice =
            "give the file shelf backup wrote (shelf backup --db STORE FILE makes one); nothing was changed"
        guard size > 0 else {
            throw StoreError(.invalidValue, "\(backup) is empty (0 bytes), not a shelf backup; \(advice)")
        }
        guard let handle = FileHandle(forReadingAtPath: backup) else { return }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 512)) ?? Data())
        guard !head.starts(with: Array("SQLite format 3\0".utf8)) else { return }
        let what: String
        if head.starts(with: [0x1F, 0x8B]) {
            what =
                "a gzip-compressed file, not a shelf backup (a backup is a SQLite database); if it holds one, "
                + "decompress it (gunzip) and restore that; otherwise \(advice)"
        } else if !head.contains(0),
            (0...3).contains(where: { String(validating: head.dropLast($0), as: UTF8.self) != nil })
        {
            what =
                "a text file, not a shelf backup (a backup is a SQLite database; an export is loaded with "
                + "shelf import); \(advice)"
        } else {
            what = "not a shelf backup: it is no SQLite database (it does not start as one); \(advice)"
        }
        throw StoreError(.invalidValue, "\(backup) is \(what)")
    }

    /// True when the file at `path` starts as every SQLite database does ("SQLite format 3"):
    /// one that then fails to open is damaged, not another kind of file.
    static func isSQLiteFile(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header == Data("SQLite format 3\0".utf8)
    }

    /// The error for a backup whose data is damaged (`what` says how it shows), with what can
    /// still be done.
    static func damaged(_ backup: String, _ what: String) -> StoreError {
        StoreError(
            .invalidValue,
            "\(backup) is damaged: \(what). It cannot be restored; choose another backup (an older one), or "
                + "recover what it holds into a new file (sqlite3 \(ShellQuoting.quoted(backup)) .recover | sqlite3 "
                + "NEW.sqlite) and restore that. Nothing was changed")
    }

    /// Why the checked copy of `backup` did not open as a store, said of the backup (not
    /// of its temporary copy) with what a person restoring it can do.
    static func openFailure(_ error: StoreError, temporary: String, backup: String) -> StoreError {
        let cause = error.message.replacingOccurrences(of: temporary, with: backup)
        switch error.code {
        case .migrationFailed:
            // The migrator's own advice ("fix the SQL") is for whoever writes migrations.
            let what = cause.components(separatedBy: ". Earlier migrations").first ?? cause
            return StoreError(
                .migrationFailed,
                "\(backup) was written by an older shelf, and bringing it up to this one failed (\(what)): its data "
                    + "does not fit a rule this shelf adds. Open a copy of it with this shelf (shelf migrate --db "
                    + "COPY) to see which rows, correct them with sqlite3, then restore that copy; or restore another "
                    + "backup. Nothing was changed")
        case .modifiedMigration:
            return StoreError(
                .modifiedMigration,
                "\(backup) was written by a shelf whose schema differs from this one's (\(cause.components(separatedBy: " (recorded").first ?? cause)): "
                    + "restore it with the shelf that wrote it, or restore another backup. Nothing was changed")
        case .newerDatabase:
            return StoreError(
                .newerDatabase,
                "\(backup) was written by a newer shelf than this one: upgrade shelf, then restore it; or restore "
                    + "a backup this shelf wrote. Nothing was changed")
        case .corrupt:
            return damaged(backup, cause)
        default:
            return StoreError(error.code, "cannot check \(backup): \(cause); nothing was changed")
        }
    }
}
