internal import CSQLite

extension Connection {
    /// Copies every page of this connection's main database into `destination`'s main
    /// database (SQLite's online backup API), replacing all it held: the same schema, rows,
    /// indexes and full-text indexes, byte for byte.
    ///
    /// When this connection has a read transaction open, the pages are read from its
    /// snapshot (SQLite's backup uses an open read transaction of the source, and keeps
    /// it); commits of other connections meanwhile are not copied. `destination` is locked
    /// for writing until the copy ends; it must not be in WAL mode with another page size.
    ///
    /// `pagesPerStep` pages are copied at a time; between steps `isCancelled` is asked (a
    /// true answer throws `CancellationError`, leaving `destination` partly written: the
    /// caller discards it) and `progress` told the pages copied and the total.
    /// - Throws: `DatabaseError` from either side (a full disk: `DatabaseError.full`).
    package func copyPages(
        into destination: Connection, pagesPerStep: Int32 = 4096, isCancelled: () -> Bool = { false },
        progress: (_ copied: Int, _ total: Int) -> Void = { _, _ in }
    ) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw DatabaseError(handle: destination.handle, code: sqlite3_errcode(destination.handle))
        }
        var finished = false
        defer { if !finished { sqlite3_backup_finish(backup) } }
        while true {
            if isCancelled() { throw CancellationError() }
            let code = sqlite3_backup_step(backup, pagesPerStep)
            let total = Int(sqlite3_backup_pagecount(backup))
            progress(total - Int(sqlite3_backup_remaining(backup)), total)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_OK else {
                finished = true
                sqlite3_backup_finish(backup)
                throw DatabaseError(handle: destination.handle, code: code)
            }
        }
        finished = true
        let code = sqlite3_backup_finish(backup)
        guard code == SQLITE_OK else { throw DatabaseError(handle: destination.handle, code: code) }
    }
}
