import ShelfStore

/// Commands a hint tells a person to run, naming the database in use.
public enum StoreHints {
    /// `shelf demo --db LOCATION`, which fills the database at `location` with sample data;
    /// nil for a store in memory, which no other command can reach.
    public static func demoCommand(location: String) -> String? {
        location == "in memory" ? nil : "shelf demo --db " + ShellQuoting.quoted(location)
    }

    /// `shelf users add --db LOCATION --name NAME --email EMAIL`, which adds the user with
    /// `email` to the database at `location`; nil for a store in memory.
    public static func addUserCommand(location: String, email: String) -> String? {
        location == "in memory"
            ? nil
            : "shelf users add --db \(ShellQuoting.quoted(location)) --name NAME --email \(ShellQuoting.quoted(email))"
    }
}
