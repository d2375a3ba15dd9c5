package edu.stanford.nlp.ling;

/** Test-time stand-in: SPICE's SemanticConcept has a constructor taking one (never called here). */
public class IndexedWord {
  public String lemma() {
    return "";
  }
}
