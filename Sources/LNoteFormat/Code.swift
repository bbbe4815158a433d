// The stable codes of every error and warning: the `code` of a `Diagnostic` and of an
// `LNoteError`, and of the CLI's report (text `[code]`, JSON `"code"`). Scripts match on the raw
// values, so they never change; the README's table "Error and warning codes" lists them by area,
// and `CodeTableTests` holds it to this type.

/// A stable error or warning code. The raw value is what is printed and documented.
public enum Code: String, Sendable, CaseIterable, CustomStringConvertible {
    // command line, output and library calls
    case usage
    case pageNumber = "page-number"
    case outputDirectory = "output-directory"
    case output
    case outputInsidePackage = "output-inside-package"
    case noPackages = "no-packages"
    case notAPackage = "not-a-package"
    case notADirectory = "not-a-directory"
    case inotifyLimit = "inotify-limit"
    case noPages = "no-pages"
    case format
    case maxPixels = "max-pixels"
    case maxWork = "max-work"
    case scale
    case encode
    case write
    case image
    case assetsKept = "assets-kept"
    case golden
    case unreadable
    case orphanedGolden = "orphaned-golden"
    case prune
    case sharedGoldens = "shared-goldens"
    // files
    case missing
    case package
    case symlink
    case notRegularFile = "not-regular-file"
    case directory
    case path
    case read
    case delete
    case fileSize = "file-size"
    case journalAppend = "journal-append"
    // document.json
    case json
    case documentObject = "document-object"
    case pages
    case pageLimit = "page-limit"
    case pageEntry = "page-entry"
    case pageId = "page-id"
    case pageDuplicateId = "page-duplicate-id"
    case pageSize = "page-size"
    case pageIndex = "page-index"
    case documentId = "document-id"
    case title
    case timestamp
    case elementCount = "element-count"
    case background
    case backgroundColor = "background-color"
    case backgroundTemplate = "background-template"
    case backgroundSpacing = "background-spacing"
    case backgroundLineColor = "background-line-color"
    case moreWarnings = "more-warnings"
    // content files and elements
    case contentObject = "content-object"
    case elements
    case elementObject = "element-object"
    case elementLimit = "element-limit"
    case sampleLimit = "sample-limit"
    case moreInvalidElements = "more-invalid-elements"
    case id
    case type
    case points
    case pointsLength = "points-length"
    case pointsInteger = "points-integer"
    case coordinateRange = "coordinate-range"
    case radiusRange = "radius-range"
    case pressureRange = "pressure-range"
    case timeRange = "time-range"
    case color
    case opacity
    case asset
    case frame
    case rotation
    // journals
    case journalCrc = "journal-crc"
    case journalType = "journal-type"
    case journalEmpty = "journal-empty"
    case journalPayload = "journal-payload"
    case journalTornTail = "journal-torn-tail"
    case journalMoreDiscarded = "journal-more-discarded"
    // compaction
    case compactionWouldDrop = "compaction-would-drop"
    case compactionUnreadable = "compaction-unreadable"
    case compactionNotIdempotent = "compaction-not-idempotent"
    // level-2 storage (`migrate`, `restore`)
    case target
    case targetInUse = "target-in-use"
    case targetInsidePackage = "target-inside-package"
    case targetNotAStore = "target-not-a-store"
    case sqliteOpen = "sqlite-open"
    case sqlite
    case sqliteClose = "sqlite-close"
    case store
    case storeVersion = "store-version"
    case storeIntegrity = "store-integrity"
    case storeInstall = "store-install"
    case storeRow = "store-row"
    case packageExists = "package-exists"
    case duplicatePackage = "duplicate-package"
    case pageWithoutContent = "page-without-content"
    // derived data (`check`)
    case missingThumbnail = "missing-thumbnail"
    case staleThumbnail = "stale-thumbnail"
    case unfingerprintedThumbnail = "unfingerprinted-thumbnail"
    case thumbnailSettings = "thumbnail-settings"
    case manifest
    case manifestObject = "manifest-object"
    case manifestField = "manifest-field"
    case manifestStale = "manifest-stale"
    case manifestCover = "manifest-cover"
    case missingAsset = "missing-asset"
    case orphanAsset = "orphan-asset"
    case orphanThumbnail = "orphan-thumbnail"
    case unlistedPage = "unlisted-page"
    case unexpectedFile = "unexpected-file"
    case temporaryFile = "temporary-file"

    public var description: String { rawValue }

    /// The rows of the README's table, in its order.
    public enum Area: String, Sendable, CaseIterable {
        case commandLine = "command line, output and library calls"
        case files = "files"
        case document = "document.json"
        case content = "content files and elements"
        case journals = "journals"
        case compaction = "compaction"
        case storage = "level-2 storage (`migrate`, `restore`)"
        case derivedData = "derived data (`check`)"
    }

    /// The row of the README's table that lists the code.
    public var area: Area {
        switch self {
        case .usage, .pageNumber, .outputDirectory, .output, .outputInsidePackage, .noPackages, .notAPackage,
             .notADirectory, .inotifyLimit, .noPages, .format, .maxPixels, .maxWork, .scale, .encode, .write,
             .image, .assetsKept, .golden, .unreadable, .orphanedGolden, .prune, .sharedGoldens:
            return .commandLine
        case .missing, .package, .symlink, .notRegularFile, .directory, .path, .read, .delete, .fileSize,
             .journalAppend:
            return .files
        case .json, .documentObject, .pages, .pageLimit, .pageEntry, .pageId, .pageDuplicateId, .pageSize,
             .pageIndex, .documentId, .title, .timestamp, .elementCount, .background, .backgroundColor,
             .backgroundTemplate, .backgroundSpacing, .backgroundLineColor, .moreWarnings:
            return .document
        case .contentObject, .elements, .elementObject, .elementLimit, .sampleLimit, .moreInvalidElements, .id,
             .type, .points, .pointsLength, .pointsInteger, .coordinateRange, .radiusRange, .pressureRange,
             .timeRange, .color, .opacity, .asset, .frame, .rotation:
            return .content
        case .journalCrc, .journalType, .journalEmpty, .journalPayload, .journalTornTail, .journalMoreDiscarded:
            return .journals
        case .compactionWouldDrop, .compactionUnreadable, .compactionNotIdempotent:
            return .compaction
        case .target, .targetInUse, .targetInsidePackage, .targetNotAStore, .sqliteOpen, .sqlite, .sqliteClose,
             .store, .storeVersion, .storeIntegrity, .storeInstall, .storeRow, .packageExists, .duplicatePackage,
             .pageWithoutContent:
            return .storage
        case .missingThumbnail, .staleThumbnail, .thumbnailSettings, .manifest, .manifestObject, .manifestField,
             .manifestStale, .manifestCover, .missingAsset, .orphanAsset, .orphanThumbnail, .unlistedPage,
             .unexpectedFile, .temporaryFile, .unfingerprintedThumbnail:
            return .derivedData
        }
    }
}
