import ArgumentParser

@main
struct Shelf: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shelf",
        abstract: "Users and their items in SQLite.",
        subcommands: [
            BrowseCommand.self, DemoCommand.self, MigrateCommand.self, UsersCommand.self, ItemsCommand.self,
            WatchCommand.self, TerminalDemoCommand.self,
        ],
        defaultSubcommand: BrowseCommand.self
    )
}
