# Alpha-beta search over the order tree (RULINGS C8 = Point-Buy Chess): the node loop, the
# transposition table and the evaluation run in C; engine/board/alphabeta.py drives iterative
# deepening with aspiration windows, time management, multi-PV and reporting.
from libc.stdint cimport uint64_t, uint32_t, int32_t, int16_t, uint8_t
from engine._tables cimport Rules, MAX_TYPES
from engine._board cimport Board

cdef extern from *:
    # A flag written by one thread (request_stop) and read by the search loop in another.
    ctypedef int volatile_flag "volatile int"

cdef enum:
    MAX_PLY = 96
    SEARCH_CAPACITY = 4096      # orders kept per ply (more is reported as an error)
    MATE = 1000000              # a Sovereign-loss score; mate in n plies is +-(MATE - n)
    INF = 2000000
    TT_WAYS = 4                 # entries per transposition-table bucket
    N_PHASES = 2                # 0 = middlegame, 1 = endgame (tapered evaluation)

cdef enum:
    TT_EXACT = 1
    TT_LOWER = 2                # score is at least the stored value (a beta cut-off)
    TT_UPPER = 3                # score is at most the stored value (no move raised alpha)

# One transposition-table entry (24 bytes). A bucket holds TT_WAYS of them; a new result replaces
# the same position, else the entry of least worth: depth minus 4 per search generation of age.
ctypedef struct TTEntry:
    uint64_t key
    uint32_t move
    int32_t score               # mate scores relative to this node (distance from here)
    int32_t eval                # static evaluation, side to move (INF: unknown)
    int16_t depth               # remaining depth; 0 for quiescence results
    uint8_t flag                # TT_EXACT / TT_LOWER / TT_UPPER
    uint8_t generation          # the search that wrote it (for aging)

# Evaluation weights (engine/data/eval.toml, engine/board/evaluate.py). Material is the Point-Buy
# price list of units.toml; piece-square tables are derived from each unit's movement at start-up
# (mobility on an empty board, flat and cylindrical) and so cover every unit type.
ctypedef struct Weights:
    int32_t value[MAX_TYPES]            # per unit on the board, in centi-points
    int32_t barracks_percent            # a Barracks unit counts this % of its value
    int32_t mobility                    # per square a non-Foot unit reaches (dynamic)
    int32_t sovereign_attacked          # per own Sovereign an enemy could capture now
    int32_t extra_sovereign             # per Sovereign beyond the first
    int32_t pst_mobility[N_PHASES]      # per square of empty-board reach above the unit's average
    int32_t foot_advance[N_PHASES][8]   # per Foot unit on each relative rank
    int32_t foot_doubled[N_PHASES]      # per extra own Foot unit on a file
    int32_t foot_isolated[N_PHASES]     # per Foot unit with no own Foot unit on a neighbouring file
    int32_t foot_passed[N_PHASES][8]    # per passed Foot unit on each relative rank
    int32_t sovereign_rank[N_PHASES][8] # per Sovereign on each relative rank
    int32_t sovereign_centre[N_PHASES]  # times the Sovereign's empty-board reach above average
    int32_t shelter                     # per own Foot unit in front of a Sovereign (middlegame)
    int32_t zone_attack                 # per enemy reach into a Sovereign's neighbourhood (middlegame)
    int32_t tempo                       # for the side to move
    int32_t phase_total                 # non-Foot, non-Sovereign material of a full game (both sides)
    # Terms of boards with levels and X squares (Crusade & Conquer, docs/crusade.md); 0 for For the Crown.
    int32_t castle_floor[N_PHASES]      # per non-Foot unit and level of the square it stands on (H1, H3)
    int32_t x_race[N_PHASES][8]         # per wins-on-X unit by its steps to the opposing X (H8b): index
                                        # 1..7 (7: 7 or more); none when its way there is shut
    int32_t x_unstoppable               # such a unit the defending King cannot stop in time
    int32_t flight                      # per square a flying unit reaches beyond one step (H7)

# Tables built once per search context from the rules and the weights.
ctypedef struct EvalTables:
    int32_t pst[2][MAX_TYPES][2][64][N_PHASES]   # [cylindrical][type][colour][square][phase]
    int32_t centre[2][MAX_TYPES][2][64]          # empty-board reach above the type's average, in 1/16
    uint64_t reach[2][MAX_TYPES][2][64]          # every square the unit could ever capture on from here
                                                 # (empty board and a board full of enemies): a unit
                                                 # whose reach misses a square cannot attack it
    uint64_t foot_types
    uint64_t sovereign_types
    uint64_t flight_types                        # types with the (flight) pattern (H7)
    uint64_t x_types                             # types that win on the opposing X (H8b)
    uint64_t x_step[2][64]                       # [colour][from]: a wins-on-X unit's steps on an empty board
    uint8_t king_x_dist[2][64]                   # [colour][from]: that colour's King steps (levels obeyed) to
                                                 # its own X on an empty board; 255 unreachable
