internal import CSQLite
package import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

/// A prepared statement. Confined to its `Connection`: use it only inside the closure that
/// handed out the connection, and only until the next call that uses the same statement.
///
/// Statements from `Connection.cachedStatement(_:)` are reused across calls; `reset()` runs
/// before every hand-out, so bindings never leak from one use into the next.
package final class Statement {
    package let handle: OpaquePointer
    package let sql: String
    /// The tables this statement reads, as SQLite's authorizer reported them when it was
    /// prepared.
    package internal(set) var readTables: Set<String> = []
    /// Column name → index, built once per statement on first use by name.
    private var columnIndexes: [String: Int32]?

    init(connection: OpaquePointer, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw DatabaseError(handle: connection, code: code == SQLITE_OK ? SQLITE_MISUSE : code, sql: sql)
        }
        self.handle = statement
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// The number of result columns.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// True while the statement has stepped but not been reset.
    var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// The index of the result column named `name` (case-sensitive), or nil.
    package func columnIndex(named name: String) -> Int32? {
        if let columnIndexes { return columnIndexes[name] }
        var map: [String: Int32] = [:]
        for index in 0..<columnCount {
            let name = String(cString: sqlite3_column_name(handle, index))
            if map[name] == nil { map[name] = index }
        }
        columnIndexes = map
        return map[name]
    }

    /// Binds `values` to parameters 1, 2, … in order.
    package func bind<each Value: SQLBindable>(_ values: repeat each Value) throws {
        var index: Int32 = 1
        for value in repeat each values {
            try value.bind(to: self, at: index)
            index += 1
        }
    }

    /// Binds `values` to parameters 1, 2, … in order.
    package func bind(arguments values: [any SQLBindable]) throws {
        for (offset, value) in values.enumerated() {
            try value.bind(to: self, at: Int32(offset + 1))
        }
    }

    /// Steps once. Returns true when a row is available, false when done.
    /// On failure the statement is reset and a `DatabaseError` carrying the SQL is thrown.
    @discardableResult
    package func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = DatabaseError(handle: sqlite3_db_handle(handle), code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement and clears its bindings, ready for the next use.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Steps through every row, calling `body` with each. Resets afterwards, even on error.
    package func forEachRow(_ body: (Row) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        let row = Row(statement: handle, owner: self)
        while try step() {
            try body(row)
        }
    }

    /// Binds `bytes` as text (stored as they are: SQLite does not check them) to parameter
    /// `index` without copying them, and calls `body` (which runs the statement) while they
    /// stay in place; the parameter is bound to NULL again before this returns, so the
    /// statement never keeps a pointer to them. For values too big to copy twice: a bound
    /// copy (SQLITE_TRANSIENT) of a 60 MB note is 60 MB more of peak memory.
    package func withText<T>(_ bytes: [UInt8], at index: Int32, _ body: () throws -> T) throws -> T {
        try bytes.withUnsafeBufferPointer { buffer in
            // A zero-length text still needs a non-null pointer, or SQLite binds NULL.
            let base = buffer.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(bitPattern: 1)
            let code = base.map {
                sqlite3_bind_text64(
                    handle, index, $0.assumingMemoryBound(to: CChar.self), sqlite3_uint64(buffer.count), nil,
                    UInt8(SQLITE_UTF8))
            }
            try check(code ?? SQLITE_MISUSE, binding: index)
            defer { sqlite3_bind_null(handle, index) }
            return try body()
        }
    }

    /// Runs the statement to completion, ignoring any rows. Resets afterwards.
    package func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }
}

/// The current row of a stepping statement. Valid only inside the closure it is passed to.
///
/// Access by index is a direct C call; access by name looks the index up in the statement's
/// name map, built once per prepared statement (no dictionary per row).
package struct Row {
    let statement: OpaquePointer
    private unowned(unsafe) let owner: Statement

    init(statement: OpaquePointer, owner: Statement) {
        self.statement = statement
        self.owner = owner
    }

    package var sql: String { owner.sql }

    package func columnName(_ index: Int32) -> String {
        sqlite3_column_name(statement, index).map { String(cString: $0) } ?? "?"
    }

    /// The value of column `index` (0-based).
    @inline(__always)
    package func get<Value: SQLDecodable>(_ index: Int32, as type: Value.Type = Value.self) throws -> Value {
        try Value.decode(from: self, at: index)
    }

    /// The value of the column named `name`. Throws when there is no such column.
    package func get<Value: SQLDecodable>(_ name: String, as type: Value.Type = Value.self) throws -> Value {
        guard let index = owner.columnIndex(named: name) else {
            throw DatabaseError(
                extendedCode: SQLITE_RANGE, message: "no column named '\(name)' in the result", sql: sql)
        }
        return try Value.decode(from: self, at: index)
    }

    // Non-generic accessors: hot decoding loops in other modules call these directly,
    // without the generic dispatch `get` costs across a module boundary.

    /// Column `index` as an integer; throws on NULL.
    package func int64(_ index: Int32) throws -> Int64 { try Int64.decode(from: self, at: index) }

    /// Column `index` as text; throws on NULL.
    package func string(_ index: Int32) throws -> String { try String.decode(from: self, at: index) }

    /// Column `index` as text, or nil for NULL.
    package func optionalString(_ index: Int32) -> String? {
        // sqlite3_column_text returns a null pointer exactly for NULL: one call, not two.
        guard let text = sqlite3_column_text(statement, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The bytes of column `index` as text, or nil for NULL: no `String` is made. Valid only
    /// until the statement steps again; not checked to be UTF-8.
    @inline(__always)
    package func textBytes(_ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let text = sqlite3_column_text(statement, index) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index)))
    }

    /// True when column `index` holds exactly the UTF-8 text `literal`: compares the bytes in
    /// place, without making a `String` (for enum-like columns read in hot loops).
    package func textEquals(_ index: Int32, _ literal: StaticString) -> Bool {
        guard let text = sqlite3_column_text(statement, index) else { return false }
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count == literal.utf8CodeUnitCount else { return false }
        return memcmp(text, literal.utf8Start, count) == 0
    }

    /// What column `index` holds, as SQLite stores it (`sqlite3_column_type`): one C call, for
    /// checks in hot loops that a value is of its column's kind before it is read as one.
    @inline(__always)
    package func storageClass(_ index: Int32) -> StorageClass {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// Column `index` as a date (see `Date: SQLValue`); throws on NULL.
    package func date(_ index: Int32) throws -> Date { try Date.decode(from: self, at: index) }
}

/// The five kinds of value SQLite stores (its storage classes), whatever a column declares.
package enum StorageClass: Sendable {
    case integer, real, text, blob, null
}
