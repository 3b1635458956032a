/// What an item's title and notes and a user's name may hold, on every backend: the one rule
/// every write path meets (library inserts and updates, the command line, the browser's
/// editor, imports).
///
/// - Length: titles and names are sort keys: each list ordering has an index on them, and
///   PostgreSQL refuses an index entry over 2,704 bytes. The limit is counted in Unicode
///   scalars (at most 4 bytes each in UTF-8), so every title and name fits both backends the
///   same way, and a store moves from SQLite to PostgreSQL and back without a row refused.
///   Notes have no such limit.
/// - NUL (U+0000): refused in titles, notes and names (emails refuse it with every other
///   control, see `Email`). PostgreSQL text cannot hold it, and SQLite's can, so without the
///   rule a NUL stored in a SQLite file made an export no import would read back, and a store
///   that could not move to PostgreSQL.
package enum TextLimits {
    /// The most Unicode scalars an item's title may have.
    package static let title = 500
    /// The most Unicode scalars a user's name may have.
    package static let name = 500

    /// Why `text` may not be stored because it holds a NUL character, or nil when it holds
    /// none; `what` names the field ("an item's title"). The position counts Unicode scalars
    /// from 1.
    package static func nulProblem(_ text: String, what: String) -> String? {
        // Most text holds no NUL: one pass over the bytes finds that out.
        guard text.utf8.contains(0) else { return nil }
        let position = (text.unicodeScalars.firstIndex(of: "\0")).map {
            text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: $0) + 1
        }
        return "\(what) cannot hold the NUL character (U+0000), found at character \(position ?? 1) "
            + "(PostgreSQL refuses it, and an export holding it cannot be imported): remove it"
    }

    /// Why `title` may not be stored (a NUL, or too long), or nil when it may.
    package static func titleProblem(_ title: String) -> String? {
        if let nul = nulProblem(title, what: "an item's title") { return nul }
        let count = title.unicodeScalars.count
        guard count > Self.title else { return nil }
        return "an item's title must be at most \(Self.title) characters (this one has \(count)); shorten it, "
            + "and keep the rest in the notes"
    }

    /// Why `notes` may not be stored (a NUL), or nil when they may.
    package static func notesProblem(_ notes: String?) -> String? {
        notes.flatMap { nulProblem($0, what: "an item's notes") }
    }

    /// Why `title` or `notes` may not be stored, or nil when both may.
    package static func itemProblem(title: String, notes: String?) -> String? {
        titleProblem(title) ?? notesProblem(notes)
    }

    /// Why `name` may not be stored (a NUL, or too long), or nil when it may.
    package static func nameProblem(_ name: String) -> String? {
        if let nul = nulProblem(name, what: "a user's name") { return nul }
        let count = name.unicodeScalars.count
        guard count > Self.name else { return nil }
        return "a user's name must be at most \(Self.name) characters (this one has \(count)); shorten it"
    }

    /// Throws `.invalidValue` when `title` or `notes` may not be stored; `subject` names the
    /// item in a batch.
    package static func check(title: String, notes: String?, subject: String? = nil) throws(StoreError) {
        if let problem = itemProblem(title: title, notes: notes) {
            throw StoreError(.invalidValue, (subject.map { "\($0): " } ?? "") + problem)
        }
    }

    /// Throws `.invalidValue` when `name` may not be stored; `subject` names the user in a batch.
    package static func check(name: String, subject: String? = nil) throws(StoreError) {
        if let problem = nameProblem(name) {
            throw StoreError(.invalidValue, (subject.map { "\($0): " } ?? "") + problem)
        }
    }
}

extension NewUser {
    /// The emails of `users`, normalized (`Email.normalized`), after checking every name and
    /// email: what both backends do before a batch insert's transaction, so a refused user
    /// writes nothing. A refusal names the user's place in a batch ("user 3 of 10: …").
    package static func checkedEmails(of users: [NewUser]) throws(StoreError) -> [String] {
        var emails: [String] = []
        emails.reserveCapacity(users.count)
        for (offset, user) in users.enumerated() {
            let subject = users.count == 1 ? nil : "user \(offset + 1) of \(users.count)"
            try TextLimits.check(name: user.name, subject: subject)
            do {
                emails.append(try Email.normalized(user.email))
            } catch {
                throw StoreError(error.code, (subject.map { "\($0): " } ?? "") + error.message)
            }
        }
        return emails
    }
}
