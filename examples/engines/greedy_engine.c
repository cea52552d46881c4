/* A termsnake-engine/1 bot in C: the shortest way to the food when it leaves room, else the
 * roomiest move. Build: cc -O2 -o greedy_engine examples/engines/greedy_engine.c
 * Play:  termsnake --ai exec:./greedy_engine
 * It reads one JSON object a line on stdin and answers one a line on stdout (DESIGN.md). The
 * parsing is just enough for termsnake's own messages; a real engine would use a JSON library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE (1 << 22)
static int W, H, WRAP, N;
static char *wall;            /* cell -> 1 if wall */
static int *body, blen, bhead; /* ring buffer of body cells, head at body[bhead] */
static int *seen, *queue, *first;
static const int DX[4] = {0, 0, -1, 1}, DY[4] = {-1, 1, 0, 0};
static const char *MOVES = "UDLR";

static int body_at(int i) { return body[(bhead + i) % N]; }

static int step(int cell, int d) {
    int x = cell % W + DX[d], y = cell / W + DY[d];
    if (WRAP) { x = (x + W) % W; y = (y + H) % H; }
    else if (x < 0 || y < 0 || x >= W || y >= H) return -1;
    return y * W + x;
}

/* Cells the head may not enter: the body but its tail, and always the neck. */
static void mark_blocked(int mark) {
    for (int i = 0; i < blen - 1; i++) seen[body_at(i)] = mark;
    if (blen > 1) seen[body_at(1)] = mark;
}

/* Breadth-first from start; returns the number of cells reached and fills first[] with the
 * first move toward each cell. Blocked cells are those marked with `mark` beforehand. */
static int flood(int start, int mark) {
    int head = 0, tail = 0, count = 0;
    queue[tail++] = start; seen[start] = mark + 1; first[start] = -1;
    while (head < tail) {
        int c = queue[head++]; count++;
        for (int d = 0; d < 4; d++) {
            int n = step(c, d);
            if (n < 0 || wall[n] || seen[n] == mark || seen[n] == mark + 1) continue;
            seen[n] = mark + 1; first[n] = first[c] < 0 ? d : first[c];
            queue[tail++] = n;
        }
    }
    return count;
}

static int generation = 2;
static int room_after(int d) {  /* cells reachable from the head's next cell */
    int next = step(body_at(0), d);
    generation += 2; mark_blocked(generation); seen[body_at(0)] = generation;
    return flood(next, generation);
}

static int choose(int food) {
    int head = body_at(0), best = -1, best_room = -1;
    generation += 2; mark_blocked(generation);
    flood(head, generation);
    if (food >= 0 && seen[food] == generation + 1 && first[food] >= 0) {
        int d = first[food];
        if (room_after(d) >= blen) return d;
    }
    for (int d = 0; d < 4; d++) {
        int n = step(head, d);
        generation += 2; mark_blocked(generation);
        if (n < 0 || wall[n] || seen[n] == generation) continue;
        int room = room_after(d);
        if (room > best_room) { best_room = room; best = d; }
    }
    return best < 0 ? 0 : best;
}

static const char *after(const char *s, const char *key) {
    const char *p = strstr(s, key);
    return p ? p + strlen(key) : NULL;
}

static int read_point(const char *s, const char *key) {  /* "key":[x,y] -> cell, or -1 */
    const char *p = after(s, key);
    int x, y;
    if (!p || sscanf(p, " [ %d , %d ]", &x, &y) != 2) return -1;
    return y * W + x;
}

int main(void) {
    char *line = malloc(MAX_LINE);
    if (!line || !fgets(line, MAX_LINE, stdin)) return 1;
    const char *p;
    if (!(p = after(line, "\"width\":")) || sscanf(p, "%d", &W) != 1) return 1;
    if (!(p = after(line, "\"height\":")) || sscanf(p, "%d", &H) != 1) return 1;
    WRAP = strstr(line, "\"wrap\":true") != NULL;
    N = W * H;
    wall = calloc(N, 1); body = calloc(N, sizeof *body); seen = calloc(N, sizeof *seen);
    queue = calloc(N, sizeof *queue); first = calloc(N, sizeof *first);
    p = after(line, "\"rows\":[");
    for (int y = 0; p && y < H; y++) {
        p = strchr(p, '"');
        for (int x = 0; x < W; x++) wall[y * W + x] = p[1 + x] == '#';
        p = strchr(p + 1, '"') + 1;
    }
    p = after(line, "\"body\":[");
    int x, y, n;
    while (p && sscanf(p, " [ %d , %d ]%n", &x, &y, &n) == 2) {
        body[blen++] = y * W + x;
        p = strchr(p + n, '[') && strchr(p + n, '[') < strchr(p + n, ']') ? strchr(p + n, '[') : NULL;
    }
    printf("{\"name\": \"greedy-c\"}\n");
    fflush(stdout);
    while (fgets(line, MAX_LINE, stdin)) {
        if (strstr(line, "\"end\"")) break;
        int food = read_point(line, "\"food\":");
        int d = choose(food);
        printf("{\"move\": \"%c\"}\n", MOVES[d]);
        fflush(stdout);
        int next = step(body_at(0), d);
        if (next < 0) break;  /* off the board: termsnake ends the game */
        bhead = (bhead + N - 1) % N;
        body[bhead] = next;
        if (next == food) blen++; /* ate: the tail stays */
    }
    return 0;
}
