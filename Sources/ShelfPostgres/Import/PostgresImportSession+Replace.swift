#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfStore

    extension PostgresImportSession {
        /// The rows of the table (alias `t`) that a `replace` keeps whatever else it does: every
        /// row a staged row names (written, matched, or refused by the store), and every row a
        /// skipped row names (`ImportRowKey`): its ID, and for users its email (by `Email.key`,
        /// as the store compares emails; for a user left without a key, ASCII letter case
        /// ignored). The twin of `ImportStaging.keptByInput`.
        var keptByInput: String {
            switch table {
            case .users:
                """
                t.email_key IN (SELECT email_key FROM shelf_stage WHERE email_key IS NOT NULL)
                    OR t.email_key IN (SELECT key_email_key FROM shelf_stage_rejects WHERE key_email_key IS NOT NULL)
                    OR EXISTS (SELECT 1 FROM shelf_stage s WHERE \(Self.sameEmail("t.email", "s.email")))
                    OR t.id IN (SELECT id FROM shelf_stage WHERE id IS NOT NULL)
                    OR t.id IN (SELECT key_id FROM shelf_stage_rejects WHERE key_id IS NOT NULL)
                    OR EXISTS (SELECT 1 FROM shelf_stage_rejects r
                        WHERE r.key_email IS NOT NULL AND \(Self.sameEmail("t.email", "r.key_email")))
                """
            case .items:
                """
                t.id IN (SELECT id FROM shelf_stage WHERE id IS NOT NULL)
                    OR t.id IN (SELECT key_id FROM shelf_stage_rejects WHERE key_id IS NOT NULL)
                """
            }
        }

        /// The first column of the first row of `sql` (0 when none), server errors as they are.
        private func number(_ sql: String) throws -> Int64 {
            try rawQuery(PostgresQuery(unsafeSQL: sql)).first?.decode(Int64?.self) ?? 0
        }

        /// The place of the first skipped row whose key cannot be read, or nil.
        private func unreadableReject() throws -> Int64? {
            try rawQuery("SELECT min(seq) FROM shelf_stage_rejects WHERE unreadable").first?.decode(Int64?.self)
        }

        /// The deletion of a `replace`, inside `apply`'s transaction (see
        /// `ImportStaging.deleteMissing`). `raw`: server errors come out as they are (for the
        /// set-based path, which tells a row's refusal from other failures).
        func deleteMissing(beyond: String, counts: inout ImportCounts, raw: Bool = false) throws {
            do {
                if let seq = try unreadableReject() {
                    counts.deletionsWithheldBy = seq
                    return
                }
                let doomed = "\(beyond) AND NOT (\(keptByInput))"
                if table == .users {
                    counts.itemsDeletedWithUsers = Int(
                        try number(
                            "SELECT count(*) FROM items WHERE user_id IN (SELECT t.id FROM users t WHERE \(doomed))"))
                }
                counts.deleted = Int(
                    try number(
                        "WITH gone AS (DELETE FROM \(table.rawValue) t WHERE \(doomed) RETURNING 1) SELECT count(*) FROM gone"
                    ))
            } catch let error as StoreError {
                throw error
            } catch  where !raw {
                throw StoreError(postgres: error, at: place)
            }
        }

        package func replacePreview() throws -> ImportCounts {
            try flush()
            do {
                var counts = ImportCounts()
                if let seq = try unreadableReject() {
                    counts.deletionsWithheldBy = seq
                    return counts
                }
                let doomed = "SELECT t.id FROM \(table.rawValue) t WHERE NOT (\(keptByInput))"
                counts.deleted = Int(try number("SELECT count(*) FROM (\(doomed)) AS d"))
                if table == .users {
                    counts.itemsDeletedWithUsers = Int(
                        try number("SELECT count(*) FROM items WHERE user_id IN (\(doomed))"))
                }
                try countItemOwners(doomed: doomed, into: &counts)
                return counts
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError(postgres: error, at: place)
            }
        }

        package func limitItemDeletions(to count: Int) {
            itemLimit = count
        }
    }
#endif
