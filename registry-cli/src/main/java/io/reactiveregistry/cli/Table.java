package io.reactiveregistry.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Columns padded to their widest cell, as {@code kubectl get} prints them. */
final class Table {
  private final List<String[]> rows = new ArrayList<>();

  Table(String... header) {
    rows.add(header);
  }

  /** A row; an absent (null) cell shows as {@code -}. */
  void row(String... cells) {
    String[] shown = cells.clone();
    for (int i = 0; i < shown.length; i++) {
      shown[i] = shown[i] == null ? "-" : shown[i];
    }
    rows.add(shown);
  }

  void print(PrintStream out) {
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(i == row.length - 1 ? row[i] : String.format("%-" + (widths[i] + 2) + "s", row[i]));
      }
      out.println(line.toString().stripTrailing());
    }
    out.flush();
  }
}
