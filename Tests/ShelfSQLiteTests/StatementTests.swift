import Foundation
import ShelfSQLite
import Testing

@Suite("Statement and Row")
struct StatementTests {
    struct Tag: RawRepresentable, Hashable, SQLBindable, SQLDecodable {
        let rawValue: Int64
    }

    let database: Database

    init() throws {
        database = try Database.temporary()
        try database.write {
            try $0.execute("CREATE TABLE t (i INTEGER, d REAL, s TEXT, b BLOB, f INTEGER, at INTEGER, tag INTEGER)")
        }
    }

    @Test func bindsAndReadsEveryType() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let text = "naïve ☕️ \u{0}zero \"quoted\" 'single'"
        let blob = Data([0, 1, 2, 255])
        try database.write { connection in
            try connection.run(
                "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)", Int64.max, 2.5, text, blob, true, date, Tag(rawValue: 42))
        }
        let row = try database.read { connection in
            try connection.fetchOne("SELECT i, d, s, b, f, at, tag FROM t") { row in
                (
                    try row.get(0, as: Int64.self), try row.get(1, as: Double.self), try row.get(2, as: String.self),
                    try row.get(3, as: Data.self), try row.get(4, as: Bool.self), try row.get(5, as: Date.self),
                    try row.get(6, as: Tag.self)
                )
            }
        }
        let values = try #require(row)
        #expect(values.0 == Int64.max)
        #expect(values.1 == 2.5)
        #expect(values.2 == text)
        #expect(values.3 == blob)
        #expect(values.4 == true)
        #expect(values.5 == date.sqlMillisecondPrecision)
        #expect(values.6 == Tag(rawValue: 42))
    }

    @Test func bindsNilAndEmptyValues() throws {
        try database.write { connection in
            try connection.run("INSERT INTO t (i, s, b) VALUES (?, ?, ?)", Int64?.none, "", Data())
        }
        let row = try database.read { connection in
            try connection.fetchOne("SELECT i, s, b, typeof(b) FROM t") { row in
                (
                    try row.get(0, as: Int64?.self), try row.get(1, as: String.self), try row.get(2, as: Data.self),
                    try row.get(3, as: String.self)
                )
            }
        }
        let values = try #require(row)
        #expect(values.0 == nil)
        #expect(values.1 == "")
        #expect(values.2 == Data())
        #expect(values.3 == "blob", "an empty Data binds an empty blob, not NULL")
    }

    @Test func readsColumnsByName() throws {
        try database.write { try $0.run("INSERT INTO t (i, s) VALUES (?, ?)", 7, "seven") }
        let values = try database.read { connection in
            try connection.fetch("SELECT s AS name, i AS number FROM t") { row in
                (try row.get("number", as: Int.self), try row.get("name", as: String.self))
            }
        }
        #expect(values.count == 1)
        #expect(values[0].0 == 7)
        #expect(values[0].1 == "seven")
    }

    @Test func missingColumnNameAndUnexpectedNullThrow() throws {
        try database.write { try $0.run("INSERT INTO t (i) VALUES (NULL)") }
        #expect(throws: DatabaseError.self) {
            try database.read { try $0.fetchOne("SELECT i FROM t") { try $0.get("nope", as: Int.self) } }
        }
        let error = #expect(throws: DatabaseError.self) {
            try database.read { try $0.fetchOne("SELECT i FROM t") { try $0.get(0, as: Int64.self) } }
        }
        #expect(error?.code == DatabaseError.mismatch)
        #expect(error?.message.contains("NULL") == true)
    }

    @Test func cachedStatementIsReusedAndSafeWhenNested() throws {
        try database.write { connection in
            for value in 1...3 { try connection.run("INSERT INTO t (i) VALUES (?)", value) }
        }
        let pairs = try database.read { connection in
            try connection.fetch("SELECT i FROM t ORDER BY i") { row in
                let outer = try row.get(0, as: Int.self)
                // The same SQL while the outer statement is stepping: needs a second statement.
                let count = try connection.fetch("SELECT i FROM t ORDER BY i") { try $0.get(0, as: Int.self) }.count
                return outer * 10 + count
            }
        }
        #expect(pairs == [13, 23, 33])
    }

    @Test func errorsCarrySQLAndAreMatchable() throws {
        try database.write { try $0.execute("CREATE TABLE u (email TEXT UNIQUE)") }
        try database.write { try $0.run("INSERT INTO u VALUES (?)", "a@b") }
        do {
            try database.write { try $0.run("INSERT INTO u VALUES (?)", "a@b") }
            Issue.record("a duplicate insert must fail")
        } catch DatabaseError.constraint {
            // matched by primary code
        }
        let error = #expect(throws: DatabaseError.self) {
            try database.write { try $0.run("INSERT INTO u VALUES (?)", "a@b") }
        }
        #expect(error?.extendedCode == DatabaseError.uniqueConstraint)
        #expect(error?.sql == "INSERT INTO u VALUES (?)")
        #expect(error?.message.contains("u.email") == true)
        let syntax = #expect(throws: DatabaseError.self) { try database.read { try $0.run("SELEC 1") } }
        #expect(syntax?.code == DatabaseError.error)
        #expect(syntax?.description.contains("SELEC 1") == true)
    }
}
