internal import ShelfSQLite
internal import ShelfStore

/// The named objects of a shelf's SQLite schema (tables, indexes, triggers, views), and the
/// check that a database still has every one of them.
///
/// Another program can drop a trigger or an index (`sqlite3 FILE 'DROP TRIGGER …'`) and leave
/// a database that opens and passes `integrity_check`, but whose search index goes stale on the
/// next write (the hostile tester's F8). What a database must hold is what this build's
/// migrations make in a fresh store, read from one, never a list kept by hand.
enum SQLiteSchemaObjects {
    /// One object of `sqlite_schema`: its type ("table", "index", "trigger", "view") and name.
    struct Object: Hashable, Comparable, Sendable {
        let type: String
        let name: String

        static func < (lhs: Object, rhs: Object) -> Bool {
            (lhs.type, lhs.name) < (rhs.type, rhs.name)
        }

        /// "the trigger items_fts_after_insert".
        var described: String { "the \(type) \(name)" }
    }

    /// The objects a store made by this build's migrations holds, read from a fresh in-memory
    /// one (a few milliseconds; read once per process).
    static let expected: Result<Set<Object>, StoreError> = Result(catching: {
        try StoreError.translating {
            let database = try Database.inMemory(changeCounters: Store.changeCounterTable)
            defer { database.close() }
            try SQLiteBackend.migrator.migrate(database)
            return try database.withWriter { try objects($0) }
        }
    }).mapError { $0 as? StoreError ?? StoreError(.database, "\($0)") }

    /// The objects of the database on `connection`, leaving out SQLite's own (`sqlite_…`:
    /// automatic indexes, `sqlite_sequence`, statistics), which SQLite makes itself.
    static func objects(_ connection: Connection) throws -> Set<Object> {
        Set(
            try connection.fetch(
                """
                SELECT type, name FROM sqlite_schema
                 WHERE type IN ('table', 'index', 'trigger', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                """
            ) { Object(type: try $0.string(0), name: try $0.string(1)) })
    }

    /// The objects this build's migrations make that the database on `connection` lacks,
    /// sorted; empty when it has them all. Objects it has besides (another program's index,
    /// Litestream's tables) are not shelf's concern.
    static func missing(_ connection: Connection) throws -> [Object] {
        let expected = try Self.expected.get()
        return expected.subtracting(try objects(connection)).sorted()
    }

    /// `objects` in words: "the trigger items_fts_after_insert and the index items_by_owner".
    static func listed(_ objects: [Object]) -> String {
        let shown = objects.prefix(5).map(\.described)
        let more = objects.count > 5 ? ["\(objects.count - 5) more"] : []
        return StoreCopier.listed(shown + more)
    }
}
