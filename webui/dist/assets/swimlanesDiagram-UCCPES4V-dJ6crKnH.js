import{r as e,t}from"./chunk-FGVZ23HU-CKO-O6ag.js";import"./chunk-KTR4FSNJ-DSr3q0Xy.js";import"./chunk-CNRTWJTD-UOfFFuKW.js";import"./diagram-CR5k-umm.js";import"./chunk-D5HYT7QG-BYIM5hwg.js";import"./chunk-F3AE6A5H-C6BnEnwO.js";import"./chunk-MDAHDJXZ-DutJ9qIc.js";import"./chunk-MPYPSXSE-CvEQNnia.js";import"./chunk-GZTWQ64R-C8wQKd40.js";import"./chunk-DZSZGQHW-CYrBlbOG.js";import"./chunk-ND7LMLKX-CJtX-x3T.js";import"./chunk-T47YP6PS-ML80S2Bo.js";import"./chunk-OWCVCYLK-NlNT-elL.js";import"./chunk-QDWOWVBQ-BcYRVCDB.js";import"./d3-selection-dCQX2BNo.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({styles:n(t=>`${e(t)}
  .swimlane.cluster:not([data-color-id]) rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};