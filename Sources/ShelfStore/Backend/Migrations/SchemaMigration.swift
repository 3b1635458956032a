/// One schema step of a backend: a name such as `0001_create_users_and_items` and the SQL it
/// runs (`Migrations/NAME.sql` for SQLite, `Migrations/postgres/NAME.sql` for PostgreSQL,
/// embedded at build time).
///
/// Migrations are plain SQL, applied in name order, and never edited once released: each
/// backend records every applied one's checksum, and `MigrationPlan` refuses a database whose
/// applied migrations no longer match.
package struct SchemaMigration: Sendable, Hashable {
    package let name: String
    package let sql: String

    package init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }

    /// FNV-1a (64-bit) of the SQL's UTF-8 bytes, as 16 hex digits: what both backends record
    /// in `shelf_migrations.checksum`. It detects edits; it does not resist deliberate
    /// collisions.
    package var checksum: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
