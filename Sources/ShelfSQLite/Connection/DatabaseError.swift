internal import CSQLite

/// An error reported by SQLite, with the context needed to act on it.
///
/// Match the primary result code in a `catch` clause:
///
/// ```swift
/// do { try db.write { try $0.execute("INSERT …") } }
/// catch DatabaseError.constraint { … }        // any constraint failure
/// catch let error as DatabaseError where error.extendedCode == DatabaseError.uniqueConstraint { … }
/// ```
package struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// A primary SQLite result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …).
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue & 0xFF }
        package var description: String { String(cString: sqlite3_errstr(rawValue)) }
    }

    /// The primary result code: the low byte of `extendedCode`.
    package let code: Code
    /// The extended result code, e.g. `SQLITE_CONSTRAINT_UNIQUE`.
    package let extendedCode: Int32
    /// SQLite's own message, e.g. `UNIQUE constraint failed: users.email`.
    package let message: String
    /// The SQL being run when the error happened, when there was one.
    package let sql: String?

    package init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.code = Code(rawValue: extendedCode)
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// Reads the current error of a connection handle.
    init(handle: OpaquePointer?, code: Int32, sql: String? = nil) {
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? code
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        // sqlite3_extended_errcode reports the last failed call; trust it only when it agrees.
        self.init(extendedCode: (extended & 0xFF) == (code & 0xFF) ? extended : code, message: message, sql: sql)
    }

    /// The error of a call on a database after its `close()`: `path` is the database's file.
    package static func closed(path: String?) -> DatabaseError {
        DatabaseError(extendedCode: SQLITE_MISUSE, message: "\(path ?? "the in-memory database")\(closedSuffix)")
    }

    /// How the message of `closed(path:)` ends.
    private static let closedSuffix = " is closed"

    /// True for the error of a call on a closed database (`closed(path:)`).
    package var isDatabaseClosed: Bool { extendedCode == SQLITE_MISUSE && message.hasSuffix(Self.closedSuffix) }

    package var description: String {
        var text = "SQLite error \(extendedCode) (\(code)): \(message)"
        if let sql { text += " while running: \(sql)" }
        if let hint { text += ". \(hint)" }
        return text
    }

    /// `description` without the statement that failed: what a person reads in a message
    /// (hostile round 11: `while running: UPDATE items SET user_id = ?, …` pushed the advice
    /// out of the browser's editor). The statement stays in `description`, for logs.
    package var summary: String {
        var text = "SQLite error \(extendedCode) (\(code)): \(message)"
        if let hint { text += ". \(hint)" }
        return text
    }

    /// What a person can do about the most common failures.
    private var hint: String? {
        switch extendedCode {
        case 4874, 5386:  // SQLITE_IOERR_SHMSIZE, SQLITE_IOERR_SHMMAP (macros Swift does not import)
            return "The shared-memory file beside the database (-shm) could not grow: is the disk full? "
                + "Free some space and retry."
        case 778, 1034, 1546:  // SQLITE_IOERR_WRITE, _FSYNC, _TRUNCATE
            return "Writing the file failed: is the disk full or failing? Free some space and retry."
        default:
            break
        }
        return switch code {
        case Self.busy, Self.locked:
            "Another connection or process holds the database; retry, or stop the other writer."
        case Self.corrupt, Self.notADatabase:
            "The file is damaged or not a SQLite database; restore it from a backup."
        case Self.readOnly, Self.cantOpen, Self.permission:
            "Check that the file and its folder exist and are writable."
        case Self.full:
            "The disk is full; free some space and retry."
        default:
            nil
        }
    }

    package static let error = Code(rawValue: SQLITE_ERROR)
    package static let busy = Code(rawValue: SQLITE_BUSY)
    package static let locked = Code(rawValue: SQLITE_LOCKED)
    package static let readOnly = Code(rawValue: SQLITE_READONLY)
    package static let interrupt = Code(rawValue: SQLITE_INTERRUPT)
    package static let corrupt = Code(rawValue: SQLITE_CORRUPT)
    package static let full = Code(rawValue: SQLITE_FULL)
    package static let cantOpen = Code(rawValue: SQLITE_CANTOPEN)
    package static let permission = Code(rawValue: SQLITE_PERM)
    package static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
    package static let mismatch = Code(rawValue: SQLITE_MISMATCH)
    package static let misuse = Code(rawValue: SQLITE_MISUSE)
    package static let range = Code(rawValue: SQLITE_RANGE)
    package static let notADatabase = Code(rawValue: SQLITE_NOTADB)

    package static let uniqueConstraint: Int32 = 2067  // SQLITE_CONSTRAINT_UNIQUE
    package static let primaryKeyConstraint: Int32 = 1555  // SQLITE_CONSTRAINT_PRIMARYKEY
    package static let foreignKeyConstraint: Int32 = 787  // SQLITE_CONSTRAINT_FOREIGNKEY
    package static let checkConstraint: Int32 = 275  // SQLITE_CONSTRAINT_CHECK
    package static let notNullConstraint: Int32 = 1299  // SQLITE_CONSTRAINT_NOTNULL
    /// The database file was deleted or replaced while open (SQLITE_READONLY_DBMOVED).
    package static let databaseMoved: Int32 = 1032

}

extension DatabaseError.Code {
    /// Lets `catch DatabaseError.busy` match any `DatabaseError` with that primary code.
    package static func ~= (code: Self, error: any Error) -> Bool {
        (error as? DatabaseError)?.code == code
    }
}
