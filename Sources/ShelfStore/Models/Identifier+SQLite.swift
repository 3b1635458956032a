internal import ShelfSQLite

extension Identifier: SQLBindable, SQLDecodable {}
