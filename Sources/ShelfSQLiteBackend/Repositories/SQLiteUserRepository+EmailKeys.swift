internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

extension SQLiteUserRepository {
    /// Gives every user without an email key its key (`Email.key`), and returns the users it
    /// could not give one because an older user has it: run when the store opens, after the
    /// migrations (see Migrations/0006_versions_and_email_keys.sql).
    ///
    /// Users lack a key after migration 0006 ran on an older database, and when another
    /// program (the sqlite3 shell, an import) added them or changed their email. Finding them
    /// is one walk of the key's index over its NULL entries: nothing to do costs one read.
    /// Collisions are left as they are (two users, one key), never merged nor refused, and
    /// checked again at every open until one of the emails changes.
    static func fillEmailKeys(_ database: Database) throws -> [EmailCollision] {
        try StoreError.translating {
            let unkeyed = try database.read { connection in
                try connection.fetchOne("SELECT 1 FROM users WHERE email_key IS NULL LIMIT 1") { _ in true }
            }
            guard unkeyed != nil else { return [] }
            return try database.write { connection in
                var collisions: [EmailCollision] = []
                let users = try connection.fetch(
                    "SELECT id, email FROM users WHERE email_key IS NULL ORDER BY id",
                    row: { (try $0.get(0, as: Int64.self), try $0.string(1)) })
                for (id, email) in users {
                    let key = Email.key(email)
                    let holder = try connection.fetchOne(
                        "SELECT id, email FROM users WHERE email_key = ?", key,
                        row: { (try $0.get(0, as: Int64.self), try $0.string(1)) })
                    if let holder {
                        collisions.append(
                            EmailCollision(
                                user: User.ID(id), email: email, keptBy: User.ID(holder.0), keptEmail: holder.1))
                    } else {
                        try connection.run("UPDATE users SET email_key = ? WHERE id = ?", key, id)
                    }
                }
                return collisions
            }
        }
    }
}
