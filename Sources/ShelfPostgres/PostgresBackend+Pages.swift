#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfStore

    extension PostgresBackend {
        /// Keyset pages of `items(matching:)`'s query, read one after another in one
        /// `REPEATABLE READ READ ONLY` transaction (one snapshot) on one pooled connection, by
        /// the calling task: no thread blocks. Each page is read whole before it is handed on
        /// (a row stream of postgres-nio is never held back while the consumer is slow: a
        /// connection lost under a held-back stream stops the process, postgres-nio 1.33
        /// RowStreamStateMachine). While the consumer is behind, the task is suspended in
        /// `send` with the transaction open; when the consumer stops, that send throws and the
        /// transaction rolls back, its connection going back to the pool. Never retried on
        /// another connection: pages were handed on already.
        package func readItemPages(matching query: ItemQuery, pageSize: Int, into sink: PageSink<Item>) async throws {
            try pool.checkOpen()
            let place = self.place
            // One `now` for every page: a relative time in the query names the same moment.
            let now = Date()
            try await pool.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
                var cursor: ItemCursor?
                while true {
                    // A query sent on a connection the server has ended never answers
                    // (postgres-nio 1.33): fail at once instead.
                    if connection.isClosed {
                        throw StoreError(.database, StoreError.lostConnection(at: place, cause: "the server closed it"))
                    }
                    let sql = try query.postgresPage(cursor: cursor, backward: false, limit: pageSize, now: now)
                    let page = try await PreparedPages.items(sql, of: query, on: connection)
                    guard let last = page.last else { return }
                    try await sink.send(page)
                    if page.count < pageSize { return }
                    cursor = ItemCursor(last)
                }
            }
        }
    }
#endif
