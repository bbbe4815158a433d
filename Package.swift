// swift-tools-version:6.0
//
// lnote-render: renders Lulucat Notes `.lnote` packages to images.
//
// Data flows one way through the modules:
//
//   LNoteFormat  (package on disk -> decoded page: model, JSON parser, journal, atomic writer)
//   LNoteShape   (decoded page -> shape: PageTransform, stroke pieces, template geometry, the
//                 PageBackend protocol; knows no pixels)
//   LNoteRaster  (shape -> coverage -> pixels: the raster backend's rasterizer and compositor)
//   LNoteCodecs  (pixels <-> PNG / JPEG files, over libpng and libjpeg-turbo)
//   LNoteRender  (page-to-image pipeline, thumbnail regenerator, watcher)
//   LNoteStore   (level-2 storage: packages <-> one SQLite database, over the system libsqlite3)
//   LNoteCLI     (argument parsing and the subcommands; `lnote-render` is a thin main)
//
// LNoteBitmap is the one pixel-buffer type that the rasterizer fills and the codecs read/write.

import PackageDescription

/// Developer tools only. SwiftPM refuses `unsafeFlags` in any target of a product that another
/// package depends on by version (`from: "0.1.0"`), so the library targets have none: their hot
/// loops say where checks can go (`&+`, unchecked buffer access) instead of `-Ounchecked`.
let hotLoopSettings: [SwiftSetting] = [
    .unsafeFlags(["-Ounchecked", "-enforce-exclusivity=unchecked"], .when(configuration: .release)),
    .unsafeFlags(["-O"], .when(configuration: .debug)),
]

let package = Package(
    name: "lnote-render",
    products: [
        .executable(name: "lnote-render", targets: ["lnote-render"]),
        .library(name: "LNoteRender", targets: ["LNoteRender"]),
        // Golden-image snapshot assertions for apps' XCTest and Swift Testing tests.
        .library(name: "LNoteSnapshotTesting", targets: ["LNoteSnapshotTesting"]),
    ],
    targets: [
        // System C libraries.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // XXH3-128, the thumbnails' content fingerprints; SHA-256 (OpenSSL), the stored assets' hash.
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // The C shim owns every jmp_buf: libpng and libjpeg report errors by longjmp, which
        // Swift cannot catch, so all calls that can fail go through it and come back as codes.
        .target(name: "CCodecShim", dependencies: ["CPNG", "CJPEG"],
                linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg")]),

        // Float-to-integer conversions without range checks, for the raster's hot loops.
        .target(name: "CUnchecked"),
        // The raster's C kernels: row compositing (Compositor.swift's formulas, vectorized).
        .target(name: "CRasterKernels"),

        .target(name: "LNoteBitmap"),
        .target(name: "LNoteFormat", dependencies: ["CZlib"]),
        .target(name: "LNoteShape", dependencies: ["LNoteFormat"]),
        .target(name: "LNoteRaster", dependencies: ["LNoteBitmap", "LNoteFormat", "LNoteShape", "CUnchecked", "CRasterKernels"]),
        .target(name: "LNoteCodecs", dependencies: ["LNoteBitmap", "LNoteFormat", "CCodecShim"]),
        // Vector export (PDF, SVG): the page backend that writes outlines instead of pixels.
        .target(name: "LNoteVector", dependencies: ["LNoteFormat", "LNoteShape", "LNoteCodecs", "LNoteBitmap", "CZlib"]),
        .target(name: "LNoteRender", dependencies: ["LNoteFormat", "LNoteShape", "LNoteRaster", "LNoteCodecs", "LNoteBitmap",
                                                    "LNoteVector", "CXXHash"]),
        .target(name: "LNoteSnapshotTesting", dependencies: ["LNoteRender", "LNoteRaster", "LNoteCodecs", "LNoteFormat", "LNoteBitmap"]),
        // Level-2 storage: packages into one SQLite database and back (migrate, restore).
        .target(name: "LNoteStore", dependencies: ["LNoteFormat", "CSQLite", "CCrypto"]),
        .target(name: "LNoteCLI", dependencies: ["LNoteRender", "LNoteFormat", "LNoteCodecs", "LNoteBitmap", "LNoteStore"]),
        .executableTarget(name: "lnote-render", dependencies: ["LNoteCLI"]),

        // Developer tools (built like everything else, run from tools/ scripts).
        // Optimized in debug builds too: the tests generate their large fixtures with it.
        .executableTarget(name: "lnote-gen", dependencies: ["CZlib", "LNoteFormat", "LNoteCodecs", "LNoteBitmap"], path: "tools/lnote-gen",
                          swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .executableTarget(name: "lnote-bench",
                          dependencies: ["LNoteFormat", "LNoteShape", "LNoteRaster", "LNoteCodecs", "LNoteRender", "LNoteBitmap", "CPNG", "LNoteStore", "LNoteVector"],
                          path: "tools/lnote-bench", swiftSettings: hotLoopSettings),

        // What several test targets share (a seeded generator, temporary directories, ids, a package
        // builder on the library's writers, the hostile world, peak-RSS measuring): one copy.
        .target(name: "LNoteTestSupport", dependencies: ["LNoteFormat", "LNoteCodecs", "LNoteBitmap"], path: "Tests/Support"),
        .testTarget(name: "LNoteFormatTests", dependencies: ["LNoteFormat", "CZlib", "LNoteTestSupport"]),
        .testTarget(name: "LNoteShapeTests", dependencies: ["LNoteShape", "LNoteFormat"]),
        .testTarget(name: "LNoteRasterTests", dependencies: ["LNoteRaster", "LNoteShape", "LNoteFormat", "LNoteBitmap", "LNoteTestSupport", "CRasterKernels"]),
        .testTarget(name: "LNoteCodecsTests", dependencies: ["LNoteCodecs", "LNoteBitmap", "LNoteFormat"]),
        .testTarget(name: "LNoteVectorTests", dependencies: ["LNoteVector", "LNoteRender", "LNoteShape", "LNoteFormat", "LNoteCodecs", "LNoteBitmap", "CZlib", "LNoteTestSupport"]),
        .testTarget(name: "LNoteRenderTests", dependencies: ["LNoteRender", "LNoteVector", "LNoteFormat", "LNoteShape", "LNoteRaster", "LNoteCodecs", "LNoteBitmap",
                                                             "CZlib", "LNoteTestSupport", "LNoteSnapshotTesting"],
                    exclude: ["__Snapshots__"]),
        .testTarget(name: "LNoteCLITests", dependencies: ["LNoteCLI", "LNoteRender", "LNoteShape", "LNoteRaster", "LNoteFormat", "LNoteCodecs", "LNoteBitmap", "LNoteStore",
                                                          "LNoteTestSupport"]),
        .testTarget(name: "LNoteStoreTests", dependencies: ["LNoteStore", "LNoteFormat", "LNoteRender", "LNoteBitmap", "CSQLite", "LNoteTestSupport"]),
    ]
)
