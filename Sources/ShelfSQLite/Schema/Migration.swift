/// One schema step: a name such as `0001_create_users` and the SQL it runs.
///
/// Migrations are plain SQL, applied in name order, and never edited once released:
/// the `Migrator` records each one's checksum and refuses a database whose applied
/// migrations no longer match.
package struct Migration: Sendable, Hashable {
    package let name: String
    package let sql: String

    package init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }

    /// FNV-1a (64-bit) of the SQL's UTF-8 bytes, as 16 hex digits. It detects edits; it is
    /// not meant to resist deliberate collisions.
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
