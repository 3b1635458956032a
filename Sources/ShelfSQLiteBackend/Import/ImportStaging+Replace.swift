internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

extension ImportStaging {
    /// The rows of the table (alias `t`) that a `replace` keeps whatever else it does: every
    /// row a staged row names (written, matched, or refused by the store), and every row a
    /// skipped row names (`ImportRowKey`): its ID, and for users its email (letter case
    /// ignored in every script, by `Email.key`, as the store compares emails; and, for a user
    /// left without a key, ASCII letter case ignored).
    var keptByInput: String {
        switch table {
        case .users:
            """
            t.email_key IN (SELECT email_key FROM \(rows)) OR t.email IN (SELECT email FROM \(rows))
                OR t.id IN (SELECT id FROM \(rows) WHERE id IS NOT NULL)
                OR t.id IN (SELECT key_id FROM \(rejects) WHERE key_id IS NOT NULL)
                OR t.email_key IN (SELECT key_email_key FROM \(rejects) WHERE key_email_key IS NOT NULL)
                OR t.email IN (SELECT key_email FROM \(rejects) WHERE key_email IS NOT NULL)
            """
        case .items:
            """
            t.id IN (SELECT id FROM \(rows) WHERE id IS NOT NULL)
                OR t.id IN (SELECT key_id FROM \(rejects) WHERE key_id IS NOT NULL)
            """
        }
    }

    /// The place of the first skipped row whose key cannot be read, or nil: with one, a
    /// `replace` deletes nothing.
    func unreadableReject(on connection: Connection) throws -> Int64? {
        try connection.fetchOne("SELECT min(seq) FROM \(rejects) WHERE unreadable = 1") {
            try $0.get(0, as: Int64?.self)
        } ?? nil
    }

    /// The deletion of a `replace`, inside `apply`'s transaction: deletes the rows of the table
    /// that match `beyond` (the rows the import did not write) and that the input does not
    /// keep (`keptByInput`), counting them and the items deleted with deleted users; deletes
    /// nothing when a skipped row's key cannot be read.
    func deleteMissing(on connection: Connection, beyond: String, counts: inout ImportCounts) throws {
        if let seq = try unreadableReject(on: connection) {
            counts.deletionsWithheldBy = seq
            return
        }
        let doomed = "\(beyond) AND NOT (\(keptByInput))"
        if table == .users {
            counts.itemsDeletedWithUsers = Int(
                try connection.fetchOne(
                    "SELECT count(*) FROM main.items WHERE user_id IN (SELECT t.id FROM main.users AS t WHERE \(doomed))"
                ) { try $0.int64(0) } ?? 0)
        }
        try connection.execute("DELETE FROM main.\(table.rawValue) AS t WHERE \(doomed)")
        counts.deleted = connection.changes
    }

    /// What a `replace` would delete now (see `ImportSession.replacePreview()`).
    func replacePreview() throws -> ImportCounts {
        try flushAndWait()
        return try StoreError.translating {
            try database.withWriter { connection in
                var counts = ImportCounts()
                if let seq = try unreadableReject(on: connection) {
                    counts.deletionsWithheldBy = seq
                    return counts
                }
                let doomed = "SELECT t.id FROM main.\(table.rawValue) AS t WHERE NOT (\(keptByInput))"
                counts.deleted = Int(
                    try connection.fetchOne("SELECT count(*) FROM (\(doomed))") { try $0.int64(0) } ?? 0)
                if table == .users {
                    counts.itemsDeletedWithUsers = Int(
                        try connection.fetchOne("SELECT count(*) FROM main.items WHERE user_id IN (\(doomed))") {
                            try $0.int64(0)
                        } ?? 0)
                }
                try countItemOwners(doomed: doomed, on: connection, into: &counts)
                return counts
            }
        }
    }

    func limitItemDeletions(to count: Int) {
        itemLimit = count
    }
}
