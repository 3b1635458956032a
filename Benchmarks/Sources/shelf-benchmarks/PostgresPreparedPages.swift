import Foundation
import PostgresNIO
import ShelfStore

/// The deep page and the search page of `PostgresStoreSuite` as named prepared statements
/// (parsed and planned once per connection, then only bound and executed): a reference for
/// what ShelfPostgres would gain by preparing its page queries instead of sending each as
/// an unnamed statement.
enum PostgresPreparedPages {
    typealias Row = (Int64, Int64, String, String?, String, Int64, Int64, Int64, Int64)

    struct Deep: PostgresPreparedStatement {
        static let sql =
            "SELECT \(PostgresBaseline.itemColumns) FROM items WHERE (created_at, id) < ($1, $2) "
            + "ORDER BY created_at DESC, id DESC LIMIT $3"
        let createdAt: Int64
        let id: Int64
        let limit: Int64

        func makeBindings() throws -> PostgresBindings { binds(createdAt, id, limit) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    struct Search: PostgresPreparedStatement {
        static let sql =
            "SELECT \(PostgresBaseline.itemColumns) FROM items WHERE search @@ to_tsquery('simple', $1) "
            + "ORDER BY created_at DESC, id DESC LIMIT $2"
        let match: String
        let limit: Int64

        func makeBindings() throws -> PostgresBindings { binds(match, limit) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// Runs `statement` and makes items of its rows, as `PostgresBaseline.item` does.
    static func items<Statement: PostgresPreparedStatement>(
        _ statement: Statement, on connection: PostgresConnection
    ) async throws -> [Item] where Statement.Row == Row {
        var items: [Item] = []
        for try await (id, userID, title, notes, status, priority, created, updated, version)
            in try await connection
            .execute(statement, logger: .bench)
        {
            guard let parsed = Item.Status(rawValue: status) else { throw BenchError("item \(id): status \(status)") }
            items.append(
                Item(
                    id: Item.ID(id), userID: User.ID(userID), title: title, notes: notes, status: parsed,
                    priority: Int(priority), createdAt: Date(timeIntervalSince1970: Double(created) / 1000),
                    updatedAt: Date(timeIntervalSince1970: Double(updated) / 1000), version: version))
        }
        return items
    }
}
