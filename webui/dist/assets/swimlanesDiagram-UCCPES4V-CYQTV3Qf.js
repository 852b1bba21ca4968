import{r as e,t}from"./chunk-FGVZ23HU-CnTkfses.js";import"./chunk-KTR4FSNJ-DSr3q0Xy.js";import"./chunk-CNRTWJTD--rAcmORZ.js";import"./diagram-CQHa--SW.js";import"./chunk-D5HYT7QG-CPNhIur7.js";import"./chunk-F3AE6A5H-Dq6w90SJ.js";import"./chunk-MDAHDJXZ-Ck41vJNS.js";import"./chunk-MPYPSXSE-BSygIgLm.js";import"./chunk-GZTWQ64R-DrsXd434.js";import"./chunk-DZSZGQHW-CqMG2dXT.js";import"./chunk-ND7LMLKX-DdinfLSM.js";import"./chunk-T47YP6PS-C3iHBhrI.js";import"./chunk-OWCVCYLK-DGakVZ5A.js";import"./chunk-QDWOWVBQ-DBQhSsJX.js";import"./d3-selection-dCQX2BNo.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({styles:n(t=>`${e(t)}
  .swimlane.cluster:not([data-color-id]) rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};