/// The CHECK constraints both backends' schemas name alike (Migrations/0001 and
/// Migrations/postgres/0001), and the words a `StoreError` says for each, so a value a backend
/// refuses is refused in the same words on every backend.
package enum SchemaRule {
    /// Constraint name → the rule it stands for.
    static let rules: [(constraint: String, text: String)] = [
        ("item_title_not_empty", "an item's title must not be empty"),
        ("item_priority_valid", "an item's priority must be between 0 and 3"),
        ("item_status_valid", "an item's status must be 'open' or 'done'"),
        ("user_name_not_empty", "a user's name must not be empty"),
        ("user_email_valid", "a user's email must look like name@host (at most 320 characters)"),
    ]

    /// The rule the constraint named `constraint` stands for; for a name the schema does not
    /// give, the database's own `message`.
    package static func text(constraint: String, message: String) -> String {
        rules.first { $0.constraint == constraint }?.text ?? unknown(message)
    }

    /// The rule of the first constraint `message` names (SQLite gives only a message, such as
    /// "CHECK constraint failed: item_title_not_empty").
    package static func text(in message: String) -> String {
        rules.first { message.contains($0.constraint) }?.text ?? unknown(message)
    }

    private static func unknown(_ message: String) -> String { "a value breaks a rule of the schema (\(message))" }
}
