#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore
    internal import ShelfSQLiteBackend

    #if canImport(Glibc)
        internal import Glibc
    #endif

    extension PostgresBackend {
        /// Writes the store, as one consistent snapshot (a REPEATABLE READ READ ONLY
        /// transaction), into a new SQLite shelf file at `path` that `shelf --db PATH` opens.
        /// Other clients go on writing meanwhile.
        ///
        /// The rows are copied as `Store.copy(to:)` copies them: every copied column of every
        /// table (IDs, versions, times, owners, saved views, tokens), read back and compared
        /// with the snapshot before the file is written.
        ///
        /// The same destination rules as a SQLite store's backup: the copy is written beside
        /// `path`, flushed, then renamed over it; an existing `path` is replaced only when it
        /// is an older shelf backup. The file is a single file (no -wal or -shm), as a SQLite
        /// store's backup is.
        package func backup(to path: String, shownAs name: String) async throws {
            try Store.checkBackupDestination(path, source: nil, shownAs: name)
            let folder = (path as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder),
                isFolder.boolValue
            else {
                throw StoreError(
                    .database, "cannot write the backup \(name): the folder \(folder) does not exist; create it first")
            }
            // Claimed before SQLite opens it (an empty file becomes a new store), so that
            // another backup's cleanup never takes it for abandoned. The claim ends after the
            // store is closed: closing a descriptor of the file earlier would drop SQLite's
            // locks on it.
            let (temporary, claim) = try WorkFile.claimBackup(of: path, shownAs: name)
            do {
                defer {
                    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
                    Glibc.close(claim)
                }
                let copy = try Store(path: temporary)
                do {
                    let report = try await Store(backend: self).copy(to: copy)
                    guard report.matches else {
                        throw StoreError(
                            .database,
                            "the rows written differ from the rows read (fingerprint \(report.target.fingerprint), "
                                + "not \(report.source.fingerprint)); try again, and report it if it happens again")
                    }
                    // Interrupted meanwhile (Ctrl-C): the old file stays.
                    try Task.checkCancellation()
                    // The copy is a WAL store, whose -wal and -shm would come back beside `path`
                    // whenever it is opened read-only: its own backup (VACUUM INTO) writes it as
                    // one plain file, flushed, then renamed over `path`, as a SQLite store's
                    // backup is.
                    try await copy.backup(to: path)
                } catch {
                    await copy.close()
                    throw error
                }
                await copy.close()
            } catch {
                if let error = error as? StoreError {
                    if error.message.hasPrefix("cannot write the backup") {
                        // The inner backup names the file it writes; the user gave `name`.
                        let prefix = "cannot write the backup \(path):"
                        guard name != path, error.message.hasPrefix(prefix) else { throw error }
                        throw StoreError(
                            error.code, "cannot write the backup \(name):" + error.message.dropFirst(prefix.count))
                    }
                    let outcome = error.isLostConnection ? "; nothing was written (\(name) is as it was)" : ""
                    let message = error.message.replacingOccurrences(of: temporary, with: path)
                    throw StoreError(error.code, "cannot write the backup \(name): \(message)\(outcome)")
                }
                throw error
            }
        }
    }
#endif
