internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

extension SQLiteUserRepository {
    /// Refuses, inside a write, an email whose key (`Email.key`) is that of a user without a
    /// key: one another program added (or whose email it changed) while this store was open,
    /// or one left without a key by a collision (`fillEmailKeys`). The unique index on
    /// `email_key` does not see such a user, so without this check the browser, whose store
    /// stays open, added a case-twin that `shelf users add` (which keys every user when it
    /// opens) refused. Costs one walk of the index's NULL entries: nothing when all are keyed.
    /// - Parameters:
    ///   - keys: the keys of the emails about to be written.
    ///   - except: the user being changed: their own row is no twin, and keeping the key they
    ///     have is never refused.
    /// - Throws: `StoreError` `.duplicateEmail`, as the index would.
    static func refuseKeylessTwins(of keys: [String], except: User.ID? = nil, on connection: Connection) throws {
        if let except, keys.count == 1,
            try connection.fetchOne(
                "SELECT email_key FROM users WHERE id = ?", except.rawValue,
                row: {
                    try $0.get(0, as: String?.self)
                }) == keys[0]
        {
            return  // the user keeps their email (a name changed): nothing new to refuse
        }
        let keyless = try connection.fetch(
            "SELECT id, email FROM users WHERE email_key IS NULL", row: { (try $0.int64(0), try $0.string(1)) })
        guard !keyless.isEmpty else { return }
        let wanted = Set(keys)
        if keyless.contains(where: { $0.0 != except?.rawValue && wanted.contains(Email.key($0.1)) }) {
            throw StoreError(
                .duplicateEmail, "a user with that email already exists; use another email or update that user")
        }
    }
}
