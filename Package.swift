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
        .library(name: "ShelfServer", targets: ["ShelfServer"]),
        .executable(name: "shelf", targets: ["shelf"]),
    ],
    // PostgreSQL support costs minutes of build (SwiftNIO), so the quick start does without:
    // `swift build --traits PostgreSQL` (and `swift test --traits PostgreSQL`) include it.
    // Without the trait, ShelfPostgres compiles to an empty module and PostgresNIO is not built.
    traits: [
        .trait(
            name: "PostgreSQL",
            description: "The PostgreSQL backend (ShelfPostgres, over postgres-nio): postgres:// locations."),
        // The same for the HTTP service (Hummingbird, SwiftNIO, swift-crypto): `--traits Server`.
        .trait(
            name: "Server",
            description: "The HTTP service (ShelfServer, over Hummingbird 2): `shelf serve` and `shelf tokens`."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `swift package generate-documentation --target ShelfStore` (a plugin: not built otherwise).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The Server trait's (built only with it): the service, its token hashes, its metrics;
        // and for its tests an HTTP client. (mattt/EventSource 1.1.1, the mirror's only version, does
        // not compile on Linux: URLSession has no `bytes` there; the tests parse events themselves.)
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
        // The browser's configuration file (config.toml); toml++ (C++) underneath: about 22 s of CPU in a
        // clean debug build (measured alone: 90 s of wall time on a loaded 2-core machine).
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
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
            name: "ShelfSQLite",
            dependencies: ["CSQLite", "ShelfReactive", .product(name: "Logging", package: "swift-log")]),
        .target(name: "ShelfTerminal", dependencies: ["ShelfReactive"]),
        .target(name: "ShelfTerminalTesting", dependencies: ["ShelfTerminal"]),
        .target(name: "ShelfPresentation", dependencies: ["ShelfStore", "ShelfReactive"]),
        .target(name: "ShelfTransfer", dependencies: ["ShelfStore", "ShelfReactive", "CZlib"]),
        .target(
            name: "ShelfBrowser",
            dependencies: [
                "ShelfPresentation", "ShelfTerminal", "ShelfStore", "ShelfReactive",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        // The neutral core: models, the query language, the repository and backend protocols,
        // the `Store` face. It knows no database engine.
        .target(
            name: "ShelfStore",
            dependencies: ["ShelfReactive", "CSHA256", .product(name: "Logging", package: "swift-log")]),
        // SHA-256 in C, for the copy's fingerprint (fast in a debug build too).
        .target(name: "CSHA256"),
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
                // For `ConnectionPoolError`, which PostgresClient throws as it is (its circuit breaker).
                .product(
                    name: "_ConnectionPoolModule", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
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
        // The HTTP service; without the Server trait an empty module (nothing of Hummingbird is built).
        .target(
            name: "ShelfServer",
            dependencies: [
                "ShelfStore", "ShelfReactive",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Server"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Server"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Server"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Server"])),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["Server"])),
                // HTTP/1.0 framing (`HTTP10Framing`): the request's version is gone above NIOHTTP1.
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Server"])),
            ]
        ),
        .executableTarget(
            name: "shelf",
            dependencies: [
                .target(name: "ShelfPostgres", condition: .when(traits: ["PostgreSQL"])),
                .target(name: "ShelfServer", condition: .when(traits: ["Server"])),
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
                "ShelfSQLiteBackend", "ShelfReactive", "ShelfTestSupport",
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
                .product(
                    name: "_ConnectionPoolModule", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
            ]),
        .testTarget(
            name: "ShelfConformanceTests",
            dependencies: [
                "ShelfStore", "ShelfSQLiteBackend", "ShelfTransfer", "ShelfReactive", "ShelfPostgres",
                "ShelfPostgresTesting", "ShelfTestSupport",
            ]),
        .testTarget(
            name: "ShelfServerTests",
            dependencies: [
                "shelf", "ShelfStore", "ShelfTestSupport", "ShelfSQLiteBackend",
                .target(name: "ShelfPostgres", condition: .when(traits: ["PostgreSQL"])),
                .target(name: "ShelfPostgresTesting", condition: .when(traits: ["PostgreSQL"])),
                // The routes mounted in a test's own application (the resume seam).
                .target(name: "ShelfServer", condition: .when(traits: ["Server"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Server"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Server"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Server"])),
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
