import ShelfStore

/// Commands a hint tells a person to run, naming the database in use.
public enum StoreHints {
    /// `shelf demo --db LOCATION`, which fills the database at `location` with sample data;
    /// nil when `location` is nil: a store in memory, which no other command can reach
    /// (`Store.shareableLocation`).
    public static func demoCommand(location: String?) -> String? {
        location.map { "shelf demo --db " + ShellQuoting.quoted($0) }
    }

    /// `shelf users add --db LOCATION --name NAME --email EMAIL`, which adds the user with
    /// `email` to the database at `location`; nil for a store in memory.
    public static func addUserCommand(location: String?, email: String) -> String? {
        location.map {
            "shelf users add --db \(ShellQuoting.quoted($0)) --name NAME --email \(ShellQuoting.quoted(email))"
        }
    }
}
