/// How long an item's title and a user's name may be, on every backend.
///
/// Both are sort keys: each list ordering has an index on them, and PostgreSQL refuses an
/// index entry over 2,704 bytes. The limit is counted in Unicode scalars (at most 4 bytes
/// each in UTF-8), so every title and name fits both backends the same way, and a store moves
/// from SQLite to PostgreSQL and back without a row refused. Notes have no such limit.
package enum TextLimits {
    /// The most Unicode scalars an item's title may have.
    package static let title = 500
    /// The most Unicode scalars a user's name may have.
    package static let name = 500

    /// Why `title` is too long, or nil when it is not.
    package static func titleProblem(_ title: String) -> String? {
        let count = title.unicodeScalars.count
        guard count > Self.title else { return nil }
        return "an item's title must be at most \(Self.title) characters (this one has \(count)); shorten it, "
            + "and keep the rest in the notes"
    }

    /// Why `name` is too long, or nil when it is not.
    package static func nameProblem(_ name: String) -> String? {
        let count = name.unicodeScalars.count
        guard count > Self.name else { return nil }
        return "a user's name must be at most \(Self.name) characters (this one has \(count)); shorten it"
    }

    /// Throws `.invalidValue` when `title` is too long; `subject` names the item in a batch.
    package static func check(title: String, subject: String? = nil) throws(StoreError) {
        if let problem = titleProblem(title) {
            throw StoreError(.invalidValue, (subject.map { "\($0): " } ?? "") + problem)
        }
    }

    /// Throws `.invalidValue` when `name` is too long; `subject` names the user in a batch.
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
