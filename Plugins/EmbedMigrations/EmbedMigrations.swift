import Foundation
import PackagePlugin

/// Turns the package's top-level `Migrations/*.sql` files into one generated Swift file,
/// so the SQL ships inside the binary and nothing needs to sit beside it at run time.
/// The target ShelfPostgres gets `Migrations/postgres/*.sql` instead. Both are `(name, sql)`
/// tuples, which each backend turns into its `MigrationPlan`.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let postgres = target.name == "ShelfPostgres"
        var folder = context.package.directoryURL.appending(path: "Migrations")
        if postgres { folder = folder.appending(path: "postgres") }
        let files = try FileManager.default
            .contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) SQL migrations",
                executable: try context.tool(named: "EmbedMigrationsTool").url,
                arguments: [output.path] + (postgres ? ["--plain"] : []) + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
