import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

struct ItemsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "items", abstract: "Manage items.",
        subcommands: [Add.self, List.self, Show.self, Done.self, Remove.self])

}
