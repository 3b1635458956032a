internal import CSQLite
public import Foundation

/// A value that can be bound to a statement parameter.
///
/// Conforming types: `Int64`, `Int`, `Double`, `Bool`, `String`, `Data`, `Date`,
/// `Optional` of any of them (`nil` binds SQL `NULL`), and any `RawRepresentable` whose raw
/// value is bindable (typed IDs, string enums) once it declares the conformance.
package protocol SQLBindable {
    /// Binds `self` to the 1-based parameter `index`. Throws `DatabaseError` on failure.
    func bind(to statement: Statement, at index: Int32) throws
}

/// A value that can be read from a result column.
package protocol SQLDecodable {
    /// Reads the 0-based column `index` of the current row. Throws `DatabaseError` with code
    /// `.mismatch` when the column holds `NULL` or a value that cannot be converted.
    static func decode(from row: Row, at index: Int32) throws -> Self
}

/// A value that round-trips through a column.
package typealias SQLValue = SQLBindable & SQLDecodable

/// `sqlite3_bind_text` / `_blob` with SQLITE_TRANSIENT: SQLite copies the bytes before returning.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension Statement {
    @inline(__always)
    func check(_ code: Int32, binding index: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(handle: sqlite3_db_handle(handle), code: code, sql: "\(sql) (parameter \(index))")
        }
    }
}

extension Row {
    @inline(__always)
    func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(statement, index) == SQLITE_NULL
    }

    func unexpectedNull(_ index: Int32, _ type: Any.Type) -> DatabaseError {
        DatabaseError(
            extendedCode: SQLITE_MISMATCH,
            message: "column \(index) '\(columnName(index))' is NULL, expected \(type)",
            sql: sql
        )
    }
}

extension Int64: SQLValue {
    package func bind(to statement: Statement, at index: Int32) throws {
        try statement.check(sqlite3_bind_int64(statement.handle, index, self), binding: index)
    }
    package static func decode(from row: Row, at index: Int32) throws -> Int64 {
        let value = sqlite3_column_int64(row.statement, index)
        // Only a zero can hide a NULL: check the type only then.
        if value == 0, row.isNull(index) { throw row.unexpectedNull(index, Int64.self) }
        return value
    }
}

extension Int: SQLValue {
    package func bind(to statement: Statement, at index: Int32) throws {
        try Int64(self).bind(to: statement, at: index)
    }
    package static func decode(from row: Row, at index: Int32) throws -> Int {
        Int(try Int64.decode(from: row, at: index))
    }
}

extension Bool: SQLValue {
    package func bind(to statement: Statement, at index: Int32) throws {
        try Int64(self ? 1 : 0).bind(to: statement, at: index)
    }
    package static func decode(from row: Row, at index: Int32) throws -> Bool {
        try Int64.decode(from: row, at: index) != 0
    }
}

extension Double: SQLValue {
    package func bind(to statement: Statement, at index: Int32) throws {
        try statement.check(sqlite3_bind_double(statement.handle, index, self), binding: index)
    }
    package static func decode(from row: Row, at index: Int32) throws -> Double {
        let value = sqlite3_column_double(row.statement, index)
        if value == 0, row.isNull(index) { throw row.unexpectedNull(index, Double.self) }
        return value
    }
}

extension String: SQLValue {
    package func bind(to statement: Statement, at index: Int32) throws {
        var copy = self
        // withUTF8 gives native contiguous storage without a copy for ordinary strings.
        let code = copy.withUTF8 { buffer -> Int32 in
            guard let base = buffer.baseAddress else {
                return sqlite3_bind_text(statement.handle, index, "", 0, transient)
            }
            // The 64-bit length never traps: past SQLite's limit it answers SQLITE_TOOBIG.
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sqlite3_bind_text64(
                    statement.handle, index, $0, sqlite3_uint64(buffer.count), transient, UInt8(SQLITE_UTF8))
            }
        }
        try statement.check(code, binding: index)
    }
    package static func decode(from row: Row, at index: Int32) throws -> String {
        // A NULL column is the only case where sqlite3_column_text returns a null pointer.
        guard let text = sqlite3_column_text(row.statement, index) else {
            throw row.unexpectedNull(index, String.self)
        }
        let count = Int(sqlite3_column_bytes(row.statement, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}

extension Data: SQLValue {
    package func bind(to statement: Statement, at index: Int32) throws {
        let code = withUnsafeBytes { buffer in
            // A zero-length blob still needs a non-null pointer, or SQLite binds NULL.
            sqlite3_bind_blob64(
                statement.handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                sqlite3_uint64(buffer.count), transient)
        }
        try statement.check(code, binding: index)
    }
    package static func decode(from row: Row, at index: Int32) throws -> Data {
        let count = Int(sqlite3_column_bytes(row.statement, index))
        guard let bytes = sqlite3_column_blob(row.statement, index) else {
            if row.isNull(index) { throw row.unexpectedNull(index, Data.self) }
            return Data()
        }
        return Data(bytes: bytes, count: count)
    }
}

/// Dates are stored as INTEGER milliseconds since 1970-01-01T00:00:00Z: compact, ordered,
/// and readable in the `sqlite3` shell with `datetime(col / 1000, 'unixepoch')`.
/// Precision below one millisecond is rounded away; see `Date.sqlMillisecondPrecision`.
extension Date: SQLValue {
    /// Whole milliseconds since 1970, rounded. Dates beyond Int64's range of milliseconds
    /// (about ±292 million years), or not finite, are clamped to it rather than trapping: a
    /// date can come from a request (a page cursor), and a conversion must not kill the process.
    package var sqlMilliseconds: Int64 {
        let value = (timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return value > 0 ? .max : .min }
        // 2^63 is exactly representable; Int64 holds up to 2^63 - 1 and down to -2^63.
        if value >= 0x1p63 { return .max }
        if value < -0x1p63 { return .min }
        return Int64(value)
    }

    package init(sqlMilliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(sqlMilliseconds) / 1000)
    }

    /// `self` rounded the way a column stores it, so a value equals itself after a round trip.
    package var sqlMillisecondPrecision: Date { Date(sqlMilliseconds: sqlMilliseconds) }

    package func bind(to statement: Statement, at index: Int32) throws {
        try sqlMilliseconds.bind(to: statement, at: index)
    }
    package static func decode(from row: Row, at index: Int32) throws -> Date {
        Date(sqlMilliseconds: try Int64.decode(from: row, at: index))
    }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    package func bind(to statement: Statement, at index: Int32) throws {
        switch self {
        case .some(let value): try value.bind(to: statement, at: index)
        case .none: try statement.check(sqlite3_bind_null(statement.handle, index), binding: index)
        }
    }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    package static func decode(from row: Row, at index: Int32) throws -> Wrapped? {
        row.isNull(index) ? nil : try Wrapped.decode(from: row, at: index)
    }
}

/// Typed IDs and string enums bind as their raw value once they declare `SQLValue`.
extension SQLBindable where Self: RawRepresentable, RawValue: SQLBindable {
    package func bind(to statement: Statement, at index: Int32) throws {
        try rawValue.bind(to: statement, at: index)
    }
}

extension SQLDecodable where Self: RawRepresentable, RawValue: SQLDecodable {
    package static func decode(from row: Row, at index: Int32) throws -> Self {
        let raw = try RawValue.decode(from: row, at: index)
        guard let value = Self(rawValue: raw) else {
            throw DatabaseError(
                extendedCode: SQLITE_MISMATCH,
                message: "column \(index) '\(row.columnName(index))' holds \(raw), not a valid \(Self.self)",
                sql: row.sql)
        }
        return value
    }
}
