/// A failure the command explains in one sentence; printed as `Error: <message>`, exit 1.
struct CommandError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
