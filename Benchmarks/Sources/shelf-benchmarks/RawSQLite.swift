import BaselineSQLite
import Foundation
import ShelfStore

/// The raw C API, used the way a careful programmer would by hand: one connection,
/// prepared statements reused, SQLITE_TRANSIENT strings, no wrappers.
final class RawConnection {
    let handle: OpaquePointer

    init(path: String) {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle
        else { fatalError("cannot open \(path)") }
        self.handle = handle
        exec(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000; PRAGMA cache_size=-32768;"
        )
    }

    deinit { sqlite3_close_v2(handle) }

    func exec(_ sql: String) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            fatalError("\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    func prepare(_ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
            let statement
        else { fatalError("\(sql): \(String(cString: sqlite3_errmsg(handle)))") }
        return statement
    }
}

let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
    var text = text
    text.withUTF8 { buffer in
        _ = buffer.withMemoryRebound(to: CChar.self) {
            sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), transient)
        }
    }
}

func columnText(_ statement: OpaquePointer, _ index: Int32) -> String? {
    guard let text = sqlite3_column_text(statement, index) else { return nil }
    return String(
        decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index))), as: UTF8.self)
}

func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

/// Reads the current row as an `Item`, columns in the order Shelf selects them.
func rawItem(_ statement: OpaquePointer) -> Item {
    Item(
        id: Item.ID(sqlite3_column_int64(statement, 0)),
        userID: User.ID(sqlite3_column_int64(statement, 1)),
        title: columnText(statement, 2) ?? "",
        notes: columnText(statement, 3),
        status: Item.Status(rawValue: columnText(statement, 4) ?? "") ?? .open,
        priority: Int(sqlite3_column_int64(statement, 5)),
        createdAt: date(sqlite3_column_int64(statement, 6)),
        updatedAt: date(sqlite3_column_int64(statement, 7)),
        version: sqlite3_column_int64(statement, 8))
}

let rawItemColumns = "id, user_id, title, notes, status, priority, created_at, updated_at, version"
