internal import ShelfReactive
internal import ShelfSQLite
internal import ShelfStore

extension SQLiteBackend {
    /// One statement, in one read transaction on one reader, stepped on a thread of its own
    /// (`BlockingWork`): the rows of `items(matching:)`'s page read with no limit, cut into
    /// pages. While the consumer is behind, the thread waits in `sendBlocking` with the
    /// statement and its snapshot open. When the consumer stops, that send throws; when the
    /// task is cancelled, a statement in progress is interrupted (`sqlite3_interrupt`).
    /// Either way the statement is reset, the transaction ends and the reader goes back.
    func readItemPages(matching query: ItemQuery, pageSize: Int, into sink: PageSink<Item>) async throws {
        let database = self.database
        let interruption = ReadInterruption()
        let interrupt: @Sendable () -> Void = { interruption.cancel() }
        do {
            try await BlockingWork.run(onCancel: interrupt) { _ in
                try ReadInterruption.$current.withValue(interruption) {
                    try database.read { connection in
                        try StoreError.translating {
                            let plan = try SQLiteItemRepository.matchPlan(query, limit: nil, connection)
                            let sql = query.pageSQL(cursor: nil, backward: false, limit: nil, plan: plan)
                            let statement = try connection.makeStatement(sql.text)
                            try statement.bind(arguments: sql.arguments)
                            var page: [Item] = []
                            page.reserveCapacity(pageSize)
                            try statement.forEachRow { row in
                                page.append(try Item(row: row))
                                if page.count == pageSize {
                                    try sink.sendBlocking(page)
                                    page.removeAll(keepingCapacity: true)
                                }
                            }
                            if !page.isEmpty { try sink.sendBlocking(page) }
                        }
                    }
                }
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            throw StoreError.translatingAny(error)
        }
    }
}
