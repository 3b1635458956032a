internal import ShelfSQLite
internal import ShelfStore

extension Identifier: SQLBindable, SQLDecodable {}
