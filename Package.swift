// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Shelf",
    products: [
        .library(name: "ShelfStore", targets: ["ShelfStore"]),
        .library(name: "ShelfSQLiteBackend", targets: ["ShelfSQLiteBackend"]),
        .library(name: "ShelfReactive", targets: ["ShelfReactive"]),
        .library(name: "ShelfTerminal", targets: ["ShelfTerminal"]),
        .library(name: "ShelfTerminalTesting", targets: ["ShelfTerminalTesting"]),
        .library(name: "ShelfPresentation", targets: ["ShelfPresentation"]),
        .library(name: "ShelfTransfer", targets: ["ShelfTransfer"]),
        .library(name: "ShelfPostgres", targets: ["ShelfPostgres"]),
        .executable(name: "shelf", targets: ["shelf"]),
    ],
    // PostgreSQL support costs minutes of build (SwiftNIO), so the quick start does without:
    // `swift build --traits PostgreSQL` (and `swift test --traits PostgreSQL`) include it.
    // Without the trait, ShelfPostgres compiles to an empty module and PostgresNIO is not built.
    traits: [
        .trait(
            name: "PostgreSQL",
            description: "The PostgreSQL backend (ShelfPostgres, over postgres-nio): postgres:// locations.")
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `swift package generate-documentation --target ShelfStore` (a plugin: not built otherwise).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Layers, bottom up; see docs/ARCHITECTURE.md. Imports only point down.
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // zlib, for gzip input and output as a stream (no Swift package: the system's).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "ShelfReactive"),
        .target(
            name: "ShelfSQLite", dependencies: ["CSQLite", .product(name: "Logging", package: "swift-log")]),
        .target(name: "ShelfTerminal", dependencies: ["ShelfReactive"]),
        .target(name: "ShelfTerminalTesting", dependencies: ["ShelfTerminal"]),
        .target(name: "ShelfPresentation", dependencies: ["ShelfStore", "ShelfReactive"]),
        .target(name: "ShelfTransfer", dependencies: ["ShelfStore", "CZlib"]),
        .target(
            name: "ShelfBrowser", dependencies: ["ShelfPresentation", "ShelfTerminal", "ShelfStore", "ShelfReactive"]),
        // The neutral core: models, the query language, the repository and backend protocols,
        // the `Store` face. It knows no database engine.
        .target(name: "ShelfStore", dependencies: ["ShelfReactive"]),
        // The two backends, side by side. A PostgreSQL store's backup is a SQLite shelf file,
        // so ShelfPostgres writes it through ShelfSQLiteBackend.
        .target(
            name: "ShelfSQLiteBackend",
            dependencies: ["ShelfStore", "ShelfSQLite", "ShelfReactive"],
            plugins: ["EmbedMigrations"]
        ),
        .target(
            name: "ShelfPostgres",
            dependencies: [
                "ShelfStore", "ShelfSQLiteBackend", "ShelfReactive",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
            ],
            plugins: ["EmbedMigrations"]
        ),
        // Scratch databases on a shared server, for tests (reads SHELF_TEST_POSTGRES_DATABASES).
        .target(
            name: "ShelfPostgresTesting",
            dependencies: [
                "ShelfPostgres", "ShelfStore",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        .executableTarget(
            name: "shelf",
            dependencies: [
                .target(name: "ShelfPostgres", condition: .when(traits: ["PostgreSQL"])),
                "ShelfStore",
                "ShelfSQLiteBackend",
                "ShelfReactive",
                "ShelfTerminal",
                "ShelfPresentation",
                "ShelfBrowser",
                "ShelfTransfer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // An example of an app on the terminal kit alone (no store): `swift run terminal-demo`.
        .executableTarget(
            name: "terminal-demo", dependencies: ["ShelfTerminal", "ShelfReactive"], path: "Examples/TerminalDemo"),

        // Build tooling: Migrations/*.sql become Swift string literals at build time,
        // so a copied `shelf` binary carries its schema with it.
        .executableTarget(name: "EmbedMigrationsTool", path: "Plugins/EmbedMigrationsTool"),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["EmbedMigrationsTool"]
        ),

        // Spawning children for end-to-end tests (posix_spawn, not Foundation's Process).
        .target(name: "ShelfTestSupport", path: "Tests/ShelfTestSupport"),
        .testTarget(name: "ShelfReactiveTests", dependencies: ["ShelfReactive"]),
        .testTarget(
            name: "ShelfTerminalTests",
            dependencies: ["ShelfTerminal", "ShelfTerminalTesting", "ShelfReactive", "ShelfStore"]),
        .testTarget(
            name: "ShelfBrowserTests",
            dependencies: [
                "ShelfBrowser", "ShelfPresentation", "ShelfTerminal", "ShelfTerminalTesting", "ShelfStore",
                "ShelfSQLiteBackend", "ShelfReactive",
            ]),
        .testTarget(
            name: "ShelfPresentationTests",
            dependencies: [
                "ShelfPresentation", "ShelfStore", "ShelfSQLiteBackend", "ShelfReactive", "ShelfPostgres",
                "ShelfPostgresTesting",
                "ShelfTestSupport",
            ]),
        .testTarget(name: "ShelfSQLiteTests", dependencies: ["ShelfSQLite", "CSQLite", "ShelfTestSupport"]),
        .testTarget(
            name: "ShelfStoreTests",
            dependencies: ["ShelfStore", "ShelfSQLiteBackend", "ShelfSQLite", "ShelfReactive", "ShelfTestSupport"]),
        .testTarget(
            name: "ShelfTransferTests",
            dependencies: ["ShelfTransfer", "ShelfStore", "ShelfSQLiteBackend", "ShelfTestSupport"]),
        .testTarget(
            name: "ShelfPostgresTests",
            dependencies: [
                "ShelfPostgres", "ShelfPostgresTesting", "ShelfStore", "ShelfSQLiteBackend", "ShelfReactive",
                "ShelfTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
            ]),
        .testTarget(
            name: "ShelfConformanceTests",
            dependencies: [
                "ShelfStore", "ShelfSQLiteBackend", "ShelfTransfer", "ShelfReactive", "ShelfPostgres",
                "ShelfPostgresTesting",
            ]),
        .testTarget(
            name: "shelfTests",
            dependencies: [
                "shelf", "terminal-demo", "ShelfStore", "ShelfSQLiteBackend", "ShelfTestSupport", "ShelfPostgres",
                "ShelfPostgresTesting",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// Strict settings for every Swift target, in one place.
for target in package.targets where target.type != .system && target.type != .plugin {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
