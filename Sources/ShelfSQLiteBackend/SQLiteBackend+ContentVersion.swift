internal import ShelfSQLite
internal import ShelfStore

extension SQLiteBackend {
    /// The change log's head (its `sqlite_sequence` row, which every logged change and every
    /// bulk write's `skipSequence` moves, in the committing transaction), the schema version
    /// and whether a token exists, in one statement and so one snapshot.
    func contentVersion() async throws -> StoreContentVersion? {
        try await database.storeRead(transaction: false) { connection in
            try StoreError.translating {
                try connection.fetchOne(
                    """
                    SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'shelf_change_log'), 0),
                           (SELECT schema_version FROM pragma_schema_version),
                           EXISTS (SELECT 1 FROM api_tokens)
                    """,
                    row: {
                        StoreContentVersion(
                            changes: try $0.int64(0), schema: try $0.int64(1), hasTokens: try $0.int64(2) != 0)
                    })
            }
        }
    }
}
