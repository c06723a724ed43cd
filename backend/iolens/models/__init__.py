"""Response and request models of the HTTP API and the saved notebook document, one module per domain.

They are the single source of the OpenAPI schema, from which the frontend's TypeScript client is
generated (frontend/src/api/schema.d.ts): change a model here, run `make api-client`.
Names follow XBase / XPublic / XDetail. Every model is also importable from `iolens.models`.
"""

from .block import (  # noqa: F401
    BlockDepthSeries,
    BlockFioDdir,
    BlockFioIops,
    BlockFioLog,
    BlockGrid,
    BlockHistBin,
    BlockHistSeries,
    BlockIops,
    BlockIopsSeries,
    BlockLatency,
    BlockLatencyHistogram,
    BlockLatencySeries,
    BlockOpHistogram,
    BlockOpRate,
    BlockOpSizes,
    BlockQueueDepth,
    BlockRunPublic,
    BlockScatter,
    BlockScatterSeries,
    BlockSeriesInfo,
    BlockSizeCount,
    BlockSizes,
    BlockSizeSeries,
)
from .captures import (  # noqa: F401
    ArtifactPublic,
    CaptureBase,
    CaptureCreated,
    CaptureDetail,
    CapturePublic,
    HostFact,
    ProbeCount,
    ProbePublic,
    RunPublic,
)
from .common import (  # noqa: F401
    ErrorBody,
    Health,
)
from .comparison import (  # noqa: F401
    ComparisonFacts,
    HostDiff,
    Incomparable,
    KernelConfigDiff,
    KernelOption,
)
from .events import (  # noqa: F401
    EventsByField,
    EventsRate,
    EventsSummary,
    FieldCounts,
    FieldValueCount,
    RateSeries,
    TracedEvent,
)
from .fio import (  # noqa: F401
    ComparedCapture,
    FioComparison,
    FioGroup,
    MetricRow,
    StatCell,
)
from .flame import (  # noqa: F401
    FlameCaptureRef,
    FlameComm,
    FlameCpu,
    FlameDiff,
    FlameDiffFunction,
    FlameDiffSide,
    FlameDiffTree,
    FlameEvent,
    FlameFilters,
    FlameFunction,
    FlameGraph,
    FlameGraphHead,
    FlameRun,
    FlameTask,
    FlameTop,
    FlameTree,
)
from .flame_time import FlameTimeOrder, FlameTrack  # noqa: F401
from .headlines import CaptureHeadlines, HeadlineFigure, ProbeHeadline  # noqa: F401
from .lockstat import (  # noqa: F401
    LockClassKey,
    LockClassStat,
    LockCompareCell,
    LockCompareRow,
    LockPointPublic,
    LockRunValue,
    LockStackLine,
    LockStacks,
    LockStacksCapture,
    LockStatAvailability,
    LockStatComparison,
    LockStatPoints,
    LockStatTop,
    LockSymbol,
    LockSymbolCapture,
    LockSymbolSource,
    LockTopRow,
)
from .loose import LooseFileSeen, LoosePreview  # noqa: F401
from .monitors import (  # noqa: F401
    MonitorCell,
    MonitorComparison,
    MonitorPoint,
    MonitorRow,
    MonitorSeries,
    MonitorSeriesSet,
)
from .notebook import (  # noqa: F401
    NOTEBOOK_FORMAT_VERSION,
    MarkdownCell,
    NotebookCapture,
    NotebookCreate,
    NotebookDocument,
    NotebookList,
    NotebookSaved,
    NotebookSummary,
    NotebookVersion,
    SqlCell,
    SqlChart,
    ViewCell,
)
from .offcpu import (  # noqa: F401
    OffcpuCheck,
    OffcpuPair,
    OffcpuRun,
    OffcpuSide,
    OffcpuSummary,
    OffcpuTaskRow,
)
from .sched import (  # noqa: F401
    DelayBin,
    SchedCaptureStatus,
    SchedCheck,
    SchedComparison,
    SchedCountedSeries,
    SchedDelayRow,
    SchedDelays,
    SchedOverview,
    SchedPairRow,
    SchedPairs,
    SchedPingPong,
    SchedPingPongRow,
    SchedRun,
    SchedRunMetric,
    SchedRuntime,
    SchedRuntimeRow,
    SchedSwitchRate,
    SchedSwitchSeries,
    SchedTask,
    SchedTaskRow,
    SchedTasks,
    SchedViewBase,
)
from .sql import (  # noqa: F401
    SqlColumn,
    SqlColumnDoc,
    SqlDomain,
    SqlResult,
    SqlTableDoc,
    SqlTables,
)
from .sweep import (  # noqa: F401
    FioLogSeries,
    LogSeries,
    LogSeriesPoint,
    SweepCell,
    SweepMatrix,
    SweepMetric,
    SweepParam,
    SweepPoint,
    SweepRow,
)
from .timerange import (  # noqa: F401
    FlameHeatmap,
    TimelineCpu,
    TimelineFioDdir,
    TimelineOverview,
    TimelineRun,
    TimelineTrack,
)
